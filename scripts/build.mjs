// `npm run build`: bundles each app into dist/<name>.js (+ .map) with esbuild, so the services run
// on plain `node --enable-source-maps`, with no run-time transpiler. Our workspace packages
// (@promptpix/*) and the generated Prisma client are bundled; third-party packages stay external
// and load from node_modules (sharp, pg, Prisma's runtime, PGlite's wasm, bullmq's Lua scripts).
// The dashboard's browser app (apps/dashboard) is built beside them into dist/dashboard/: static
// files with hashed names and a manifest.json, which the gateway serves (it runs no esbuild); and
// the page script (packages/embed-client) into dist/service-client.js (+ .gz).
//
// `--if-stale` (what `npm start` and the start:* scripts run first) rebuilds only when a source
// file the last build read has changed or gone, or this script changed: a stat per input, a few ms.
//
// Either way it also makes instant mode's word-vector file (scripts/build-word-vectors.cjs) when
// it is missing or older than its inputs and the devDependency that holds the vectors is installed.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { buildDashboard } from '../apps/dashboard/scripts/build.mjs';
import { buildServiceClient, SERVICE_CLIENT_FILE } from '../packages/embed-client/scripts/build.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DEFAULT_OUTDIR = join(ROOT, 'dist');
const stampOf = (outdir) => join(outdir, 'build-inputs.json');

/** Bundle name → entry point. `npm start` runs server, `start:gateway` gateway, and so on. */
export const ENTRIES = {
  server: 'apps/server/src/main.ts',
  gateway: 'apps/gateway/src/main.ts',
  worker: 'apps/worker/src/main.ts',
  admin: 'apps/admin-cli/src/main.ts',
  migrate: 'packages/db/src/cli/migrate.ts',
};

const posix = (path) => path.split('\\').join('/');
const inputsOfBuild = () => [
  fileURLToPath(import.meta.url),
  join(ROOT, 'package.json'),
  join(ROOT, 'apps', 'dashboard', 'scripts', 'build.mjs'),
  join(ROOT, 'packages', 'embed-client', 'scripts', 'build.mjs'),
];

/** Why `outdir` needs a new build, or null when it is up to date. */
export function staleReason(outdir = DEFAULT_OUTDIR) {
  if (!existsSync(stampOf(outdir))) return 'no previous build';
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(stampOf(outdir), 'utf8'));
  } catch {
    return 'unreadable build record';
  }
  for (const name of Object.keys(ENTRIES)) if (!existsSync(join(outdir, `${name}.js`))) return `${name}.js missing`;
  if (!existsSync(join(outdir, 'dashboard', 'manifest.json'))) return 'dashboard/manifest.json missing';
  if (!existsSync(join(outdir, SERVICE_CLIENT_FILE))) return `${SERVICE_CLIENT_FILE} missing`;
  if (JSON.stringify(stamp.entries) !== JSON.stringify(ENTRIES)) return 'entry points changed';
  for (const file of stamp.inputs) {
    const path = join(ROOT, file);
    if (!existsSync(path)) return `${file} removed`;
    if (statSync(path).mtimeMs > stamp.builtAtMs) return `${file} changed`;
  }
  return null;
}

/** Bare imports of anything but our workspace packages stay `require()`s of node_modules. */
const thirdPartyExternal = {
  name: 'third-party-external',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith('@promptpix/') ? undefined : { path: args.path, external: true }));
  },
};

/**
 * Our sources find files next to themselves (the migrations, package.json). In a bundle `__dirname` would be dist/, so each of our
 * modules that uses it gets its own, pointing back at its source folder (relative to the bundle,
 * so a moved checkout or a Docker image still resolves).
 */
const sourceDirname = (outdir) => ({
  name: 'source-dirname',
  setup(b) {
    b.onLoad({ filter: /\.tsx?$/ }, (args) => {
      if (args.path.includes(`${join('node_modules', '')}`)) return undefined;
      const source = readFileSync(args.path, 'utf8');
      if (!/\b__(dirname|filename)\b/.test(source)) return undefined;
      const file = JSON.stringify(posix(relative(outdir, args.path)));
      const dir = JSON.stringify(posix(relative(outdir, dirname(args.path))));
      const header = `const __filename = require('node:path').join(__bundleDir, ${file}); const __dirname = require('node:path').join(__bundleDir, ${dir});`;
      return { contents: `${header}\n${source}`, loader: args.path.endsWith('x') ? 'tsx' : 'ts' };
    });
  },
});

/**
 * Bundle name → the third-party modules it loads by name (`require`, `import()`), as esbuild saw
 * them. The container build keeps only these packages (and what they depend on) in each image.
 */
function externalsOf(metafile, outdir) {
  const byBundle = {};
  for (const [file, output] of Object.entries(metafile.outputs)) {
    const name = Object.keys(ENTRIES).find((entry) => resolve(ROOT, file) === resolve(outdir, `${entry}.js`));
    if (!name) continue;
    const ids = output.imports.filter((i) => i.external && !i.path.startsWith('node:')).map((i) => i.path);
    byBundle[name] = [...new Set(ids)].sort();
  }
  return byBundle;
}

export async function buildAll(outdir = DEFAULT_OUTDIR) {
  const started = Date.now();
  const [result, dashboard, serviceClient] = await Promise.all([
    build({
      absWorkingDir: ROOT,
      entryPoints: Object.fromEntries(Object.entries(ENTRIES).map(([name, entry]) => [name, entry])),
      outdir,
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      sourcemap: true,
      // Source paths in stack traces relative to the repository, as they read in the sources.
      sourceRoot: '',
      banner: { js: 'const __bundleDir = __dirname;' },
      plugins: [thirdPartyExternal, sourceDirname(outdir)],
      metafile: true,
      logLevel: 'warning',
    }),
    buildDashboard(join(outdir, 'dashboard')),
    buildServiceClient(outdir),
  ]);
  const inputs = [
    ...new Set([
      ...Object.keys(result.metafile.inputs).map((p) => posix(p)),
      ...dashboard.inputs,
      ...serviceClient.inputs,
      ...inputsOfBuild().map((p) => posix(relative(ROOT, p))),
    ]),
  ].sort();
  mkdirSync(outdir, { recursive: true });
  const externals = externalsOf(result.metafile, outdir);
  writeFileSync(stampOf(outdir), `${JSON.stringify({ builtAtMs: started, entries: ENTRIES, inputs, externals }, null, 1)}\n`);
  return { ms: Date.now() - started, inputs: inputs.length };
}

/** The word-vector file, in a child node (the package's 307 MB JSON stays out of this process). */
export function ensureWordVectors() {
  const wordVectors = createRequire(import.meta.url)('./build-word-vectors.cjs');
  const why = wordVectors.staleReason();
  if (!why) return;
  const script = join(ROOT, 'scripts', 'build-word-vectors.cjs');
  const child = spawnSync(process.execPath, ['--max-old-space-size=1024', script], { stdio: ['ignore', 'inherit', 'inherit'] });
  if (child.status !== 0) console.error(`promptpix: word vectors (${why}) could not be built; instant mode will match by WordNet concepts alone`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  ensureWordVectors();
  const ifStale = args.includes('--if-stale');
  const outdir = args.includes('--outdir') ? resolve(args[args.indexOf('--outdir') + 1]) : DEFAULT_OUTDIR;
  const shown = relative(ROOT, outdir) || '.';
  const why = ifStale ? staleReason(outdir) : 'requested';
  if (why) {
    const { ms, inputs } = await buildAll(outdir);
    // stderr: `npm run --silent admin` keeps stdout for the API's JSON.
    console.error(ifStale ? `promptpix: rebuilt ${shown}/ (${why}) in ${ms} ms` : `promptpix: built ${shown}/ from ${inputs} files in ${ms} ms`);
  }
}
