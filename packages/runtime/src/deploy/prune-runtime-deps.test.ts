/**
 * scripts/containers/prune-runtime-deps.mjs, run the way the container build runs it: in a folder
 * holding a lock file, a production node_modules and dist/build-inputs.json.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const SCRIPT = resolve(__dirname, '../../../../scripts/containers/prune-runtime-deps.mjs');

const LOCK = {
  lockfileVersion: 3,
  packages: {
    '': { dependencies: { a: '1', unused: '1', '@prisma/client': '1', sharp: '1' } },
    'node_modules/a': { version: '1', dependencies: { c: '1', d: '2' } },
    'node_modules/a/node_modules/d': { version: '2' },
    'node_modules/c': { version: '1' },
    'node_modules/d': { version: '1' },
    'node_modules/unused': { version: '1' },
    'node_modules/@prisma/client': { version: '1', peerDependencies: { prisma: '*' } },
    'node_modules/prisma': { version: '1', devOptional: true },
    'node_modules/sharp': { version: '1', optionalDependencies: { '@img/linux': '1', '@img/darwin': '1' } },
    'node_modules/@img/linux': { version: '1', optional: true },
    'node_modules/@img/darwin': { version: '1', optional: true },
    'node_modules/@iconify-json/noto': { version: '1' },
    'node_modules/@iconify-json/fluent-emoji-flat': { version: '1' },
    'node_modules/@promptpix/core': { resolved: 'packages/core', link: true },
  },
};

const FILES = [
  'node_modules/a/index.js',
  'node_modules/a/index.js.map',
  'node_modules/a/index.d.ts',
  'node_modules/a/README.md',
  'node_modules/a/LICENSE',
  'node_modules/a/node_modules/d/index.js',
  'node_modules/c/index.js',
  'node_modules/d/index.js',
  'node_modules/unused/index.js',
  'node_modules/@prisma/client/runtime/client.js',
  'node_modules/@prisma/client/runtime/query_compiler_small_bg.postgresql.js',
  'node_modules/@prisma/client/runtime/query_compiler_small_bg.mysql.js',
  'node_modules/@prisma/client/runtime/query_compiler_fast_bg.postgresql.js',
  'node_modules/prisma/index.js',
  'node_modules/sharp/index.js',
  'node_modules/@img/linux/index.js',
  'node_modules/@iconify-json/noto/icons.json',
  'node_modules/@iconify-json/fluent-emoji-flat/icons.json',
  'node_modules/@promptpix/core/package.json',
];

const EXTERNALS = {
  gateway: ['@prisma/client/runtime/client', '@prisma/client/runtime/query_compiler_small_bg.postgresql.js', 'a', 'sharp'],
  worker: ['a'],
  migrate: ['not-installed'],
};

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'prune-'));
  writeFileSync(join(dir, 'package-lock.json'), JSON.stringify(LOCK));
  mkdirSync(join(dir, 'dist'));
  writeFileSync(join(dir, 'dist/build-inputs.json'), JSON.stringify({ externals: EXTERNALS }));
  for (const file of FILES) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), 'x');
  }
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const prune = (...args: string[]) => spawnSync(process.execPath, [SCRIPT, ...args], { cwd: dir, encoding: 'utf8' });
const left = () => FILES.filter((file) => existsSync(join(dir, file)));

it('keeps what the bundle loads and its dependencies, nested copies included, and nothing else', () => {
  const run = prune('gateway');
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  expect(left()).toEqual([
    'node_modules/a/index.js',
    'node_modules/a/LICENSE',
    'node_modules/a/node_modules/d/index.js',
    'node_modules/c/index.js',
    'node_modules/@prisma/client/runtime/client.js',
    'node_modules/@prisma/client/runtime/query_compiler_small_bg.postgresql.js',
    'node_modules/sharp/index.js',
    'node_modules/@img/linux/index.js',
  ]);
  expect(run.stdout).toMatch(/^prune-runtime-deps gateway: kept 6 packages \(3 loaded by name\), removed \d+\n$/);
});

it("keeps the modules a role resolves by a computed name: the worker's icon sets", () => {
  expect(prune('worker').status).toBe(0);
  expect(left()).toContain('node_modules/@iconify-json/noto/icons.json');
  expect(left()).not.toContain('node_modules/sharp/index.js');
});

it('fails, removing nothing, when a module the bundle loads is not installed', () => {
  const run = prune('migrate');
  expect(run.status).not.toBe(0);
  expect(run.stderr).toContain('not installed: not-installed');
  expect(left()).toEqual(FILES);
});

it('names the roles it knows when given another', () => {
  const run = prune('server');
  expect(run.status).not.toBe(0);
  expect(run.stderr).toContain('usage: prune-runtime-deps.mjs <gateway|worker|migrate>');
});
