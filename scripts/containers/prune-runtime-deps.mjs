// Leaves in node_modules only what one image's process loads: the third-party modules its bundle
// names (dist/build-inputs.json, `externals`, recorded by scripts/build.mjs from esbuild's
// metafile), the few it resolves by a name esbuild cannot see, and everything those depend on.
// Run in the container build, from the folder that holds package-lock.json and a production
// install (`npm ci --omit=dev`):
//
//   node prune-runtime-deps.mjs <gateway|worker|migrate> [--local-embeddings]
//
// Our own packages are bundled, so their node_modules links go too; PGlite (the embedded
// database) goes because the images refuse to start without DATABASE_URL; and the Prisma CLI,
// Studio and TypeScript, which npm installs as @prisma/client's optional peers, go as well.
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Modules a role loads by a computed name, which the bundle's import list does not show:
 * the procedural model's icon sets, and onnxruntime (INSTANT_EMBEDDINGS=local, on its own thread).
 */
export const RESOLVED_AT_RUN_TIME = {
  gateway: [],
  worker: ['@iconify-json/fluent-emoji-flat', '@iconify-json/noto'],
  migrate: [],
};
export const LOCAL_EMBEDDINGS = ['onnxruntime-node'];

/** `@scope/name/deep/file.js` → `@scope/name`; `name/file` → `name`. */
export function packageOf(moduleId) {
  const parts = moduleId.split('/');
  return moduleId.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** Where Node finds `name` for the package at lock path `from` (e.g. node_modules/a/node_modules/b). */
function resolveIn(packages, from, name) {
  let dir = from;
  for (;;) {
    const candidate = dir ? `${dir}/node_modules/${name}` : `node_modules/${name}`;
    if (packages[candidate]) return candidate;
    if (!dir) return undefined;
    const parent = dir.lastIndexOf('/node_modules/');
    dir = parent === -1 ? '' : dir.slice(0, parent);
  }
}

/** Lock paths of the packages `roots` reach through `dependencies` and `optionalDependencies`. */
export function closure(lock, roots, installed) {
  const packages = lock.packages;
  const keep = new Set();
  const queue = [];
  const visit = (from, name) => {
    const found = resolveIn(packages, from, name);
    if (!found || keep.has(found) || !installed(found)) return;
    keep.add(found);
    queue.push(found);
  };
  for (const root of roots) visit('', root);
  while (queue.length > 0) {
    const path = queue.pop();
    const entry = packages[path];
    for (const name of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies })) visit(path, name);
  }
  return keep;
}

/** Files no process reads: source maps, type declarations and TypeScript sources, markdown. */
const UNUSED_FILE = /\.(map|ts|mts|cts|md|markdown)$/i;

function removeUnusedFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) removeUnusedFiles(path);
    else if (UNUSED_FILE.test(entry.name)) rmSync(path);
  }
}

/**
 * Prisma's client carries a query compiler for every database it supports (about 65 MB); the
 * generated client imports the PostgreSQL one by name, so the others go.
 */
function removeUnusedQueryCompilers(externals) {
  const dir = 'node_modules/@prisma/client/runtime';
  if (!existsSync(dir)) return;
  const named = new Set(externals.filter((id) => id.startsWith('@prisma/client/runtime/')).map((id) => id.split('/').pop()));
  for (const file of readdirSync(dir)) if (file.startsWith('query_compiler_') && !named.has(file)) rmSync(join(dir, file));
}

/** onnxruntime-node ships binaries for every platform; the image runs on this one. */
function removeOtherPlatforms() {
  const dir = 'node_modules/onnxruntime-node/bin/napi-v6';
  if (!existsSync(dir)) return;
  for (const platform of readdirSync(dir)) {
    for (const arch of readdirSync(join(dir, platform))) {
      if (platform !== process.platform || arch !== process.arch) rmSync(join(dir, platform, arch), { recursive: true });
    }
  }
}

function main([role, ...flags]) {
  if (!(role in RESOLVED_AT_RUN_TIME)) throw new Error(`usage: prune-runtime-deps.mjs <${Object.keys(RESOLVED_AT_RUN_TIME).join('|')}> [--local-embeddings]`);
  const { externals } = JSON.parse(readFileSync('dist/build-inputs.json', 'utf8'));
  const extra = flags.includes('--local-embeddings') && role !== 'migrate' ? LOCAL_EMBEDDINGS : [];
  const roots = [...new Set([...externals[role].map(packageOf), ...RESOLVED_AT_RUN_TIME[role], ...extra])];
  const lock = JSON.parse(readFileSync('package-lock.json', 'utf8'));
  const keep = closure(lock, roots, (path) => existsSync(path));
  const missing = roots.filter((root) => ![...keep].some((path) => path === `node_modules/${root}`));
  if (missing.length > 0) throw new Error(`not installed: ${missing.join(', ')}`);
  let removed = 0;
  // Deepest first, so a removed package's nested folder is never visited after its parent went.
  for (const path of Object.keys(lock.packages).sort((a, b) => b.length - a.length)) {
    if (!path.startsWith('node_modules/') || keep.has(path) || !existsSync(path)) continue;
    rmSync(path, { recursive: true, force: true });
    removed += 1;
  }
  for (const path of keep) removeUnusedFiles(path);
  removeUnusedQueryCompilers(externals[role]);
  removeOtherPlatforms();
  console.log(`prune-runtime-deps ${role}: kept ${keep.size} packages (${roots.length} loaded by name), removed ${removed}`);
}

if (import.meta.url === `file://${process.argv[1]}`) main(process.argv.slice(2));
