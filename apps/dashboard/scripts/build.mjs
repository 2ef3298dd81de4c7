// The dashboard's browser app (src/main.tsx and the CSS it imports) built to static files, which
// the gateway serves (apps/gateway/src/dashboard/web): app.<hash>.js and app.<hash>.css, each with
// its gzip form (.gz), and manifest.json mapping the entry names to the hashed files. The hash is
// of the file's content, so a hashed URL can be cached for good.
//
// The root `npm run build` (scripts/build.mjs) runs this into dist/dashboard/ with the service
// bundles, and `npm start`'s stale check rebuilds it when a source changed. On its own:
//   node apps/dashboard/scripts/build.mjs [--outdir dist/dashboard]           once
//   node apps/dashboard/scripts/build.mjs [--outdir dist/dashboard] --watch   again on every change
// (a running gateway picks up a new manifest on the next page load).
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, context } from 'esbuild';

const APP = join(dirname(fileURLToPath(import.meta.url)), '..');
const ROOT = join(APP, '..', '..');
export const DEFAULT_OUTDIR = join(ROOT, 'dist', 'dashboard');

/** The entry names the gateway links from its page shell. */
export const ENTRY_FILES = ['app.js', 'app.css'];

const options = {
  absWorkingDir: ROOT,
  entryPoints: [join(APP, 'src', 'main.tsx')],
  bundle: true,
  write: false,
  outdir: 'dashboard-out',
  entryNames: 'app',
  minify: true,
  format: 'iife',
  platform: 'browser',
  target: ['es2020'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  define: { 'process.env.NODE_ENV': '"production"' },
  legalComments: 'none',
  charset: 'utf8',
  metafile: true,
  logLevel: 'warning',
};

const hashOf = (bytes) => createHash('sha256').update(bytes).digest('hex').slice(0, 16);

/** Replaces `outdir`'s files with this build's: the hashed files first, the manifest last (renamed into place). */
function writeOutputs(result, outdir) {
  const manifest = {};
  const files = [];
  mkdirSync(outdir, { recursive: true });
  const previous = readdirSync(outdir);
  for (const entry of ENTRY_FILES) {
    const ext = entry.slice(entry.lastIndexOf('.'));
    const output = result.outputFiles.find((f) => f.path.endsWith(ext));
    if (!output) throw new Error(`dashboard build has no ${ext} output`);
    const file = `${entry.slice(0, -ext.length)}.${hashOf(output.contents)}${ext}`;
    writeFileSync(join(outdir, file), output.contents);
    writeFileSync(join(outdir, `${file}.gz`), gzipSync(output.contents, { level: 9 }));
    manifest[entry] = file;
    files.push({ file, bytes: output.contents.length });
  }
  const temporary = join(outdir, `.manifest-${process.pid}.json`);
  writeFileSync(temporary, `${JSON.stringify(manifest, null, 1)}\n`);
  renameSync(temporary, join(outdir, 'manifest.json'));
  // Files of earlier builds go; the running gateway holds what it serves in memory.
  const kept = new Set(['manifest.json', ...files.flatMap((f) => [f.file, `${f.file}.gz`])]);
  for (const name of previous) if (!kept.has(name)) rmSync(join(outdir, name), { force: true });
  return files;
}

const inputsOf = (result) => Object.keys(result.metafile.inputs).map((p) => p.split('\\').join('/'));

/** Builds into `outdir`; returns the files written and the source files read (relative to the repository). */
export async function buildDashboard(outdir = DEFAULT_OUTDIR) {
  const result = await build(options);
  return { files: writeOutputs(result, outdir), inputs: inputsOf(result) };
}

/** Rebuilds into `outdir` on every change of a source, until the process ends. */
export async function watchDashboard(outdir = DEFAULT_OUTDIR) {
  const shown = relative(process.cwd(), outdir) || '.';
  const ctx = await context({
    ...options,
    plugins: [
      {
        name: 'write-hashed',
        setup(b) {
          b.onEnd((result) => {
            if (result.errors.length > 0) return;
            const files = writeOutputs(result, outdir);
            console.error(`promptpix: dashboard built into ${shown}/: ${files.map((f) => f.file).join(', ')}`);
          });
        },
      },
    ],
  });
  await ctx.watch();
  console.error(`promptpix: watching apps/dashboard/src for changes (Ctrl-C to stop)`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const outdir = args.includes('--outdir') ? resolve(args[args.indexOf('--outdir') + 1]) : DEFAULT_OUTDIR;
  if (args.includes('--watch')) await watchDashboard(outdir);
  else {
    const started = Date.now();
    const { files } = await buildDashboard(outdir);
    console.error(
      `promptpix: dashboard built into ${relative(process.cwd(), outdir) || '.'}/ in ${Date.now() - started} ms: ${files.map((f) => `${f.file} (${f.bytes} bytes)`).join(', ')}`,
    );
  }
}
