// The page script (src/browser/main.ts) built to one minified IIFE, service-client.js, with its
// gzip form beside it (service-client.js.gz). The root `npm run build` (scripts/build.mjs) runs
// this into dist/ with the service bundles; the gateway reads the files at start and runs no esbuild.
//   node packages/embed-client/scripts/build.mjs [--outdir dist]
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const PACKAGE = join(dirname(fileURLToPath(import.meta.url)), '..');
const ROOT = join(PACKAGE, '..', '..');

/** Browsers the script targets: ES2020 syntax (Chrome 80, Firefox 74, Safari 14; `??=` is lowered); fetch keepalive and IntersectionObserver are feature-checked or harmless when missing. */
export const BROWSER_TARGET = ['es2020'];

export const SERVICE_CLIENT_FILE = 'service-client.js';

/** Writes a file whole or not at all: a gateway starting meanwhile never reads half of it. */
function writeWhole(path, contents) {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, contents);
  renameSync(temporary, path);
}

/** Builds into `outdir`; returns the bytes written and the source files read (relative to the repository). */
export async function buildServiceClient(outdir = join(ROOT, 'dist')) {
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: [join(PACKAGE, 'src', 'browser', 'main.ts')],
    bundle: true,
    write: false,
    minify: true,
    format: 'iife',
    platform: 'browser',
    target: BROWSER_TARGET,
    legalComments: 'none',
    charset: 'utf8',
    metafile: true,
    logLevel: 'warning',
  });
  const code = result.outputFiles[0].contents;
  mkdirSync(outdir, { recursive: true });
  // The gzip form first: a reader that finds the script finds its gzip form too.
  writeWhole(join(outdir, `${SERVICE_CLIENT_FILE}.gz`), gzipSync(code, { level: 9 }));
  writeWhole(join(outdir, SERVICE_CLIENT_FILE), code);
  return { bytes: code.length, inputs: Object.keys(result.metafile.inputs).map((p) => p.split('\\').join('/')) };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const outdir = args.includes('--outdir') ? resolve(args[args.indexOf('--outdir') + 1]) : join(ROOT, 'dist');
  const { bytes } = await buildServiceClient(outdir);
  console.error(`promptpix: built ${join(outdir, SERVICE_CLIENT_FILE)} (${bytes} bytes)`);
}
