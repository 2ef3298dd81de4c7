/**
 * `npm run build` (scripts/build.mjs): one bundle per app that plain `node` runs, our packages
 * inside it, third-party packages loaded from node_modules, and the stale check `npm start` runs
 * first. Built into a temporary folder inside the checkout (bundles find their packages in the
 * repository's node_modules, as dist/ does), the way the Docker images build dist/.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';

const ROOT = resolve(__dirname, '../../../..');
const BUNDLES = ['server', 'gateway', 'worker', 'admin', 'migrate'];

let outParent: string;
let out: string;
let work: string;
const build = (...args: string[]) => spawnSync(process.execPath, ['scripts/build.mjs', '--outdir', out, ...args], { cwd: ROOT, encoding: 'utf8' });
/** Plain node, no loader: what the start scripts and the images run. */
const runBundle = (name: string, args: string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, ['--enable-source-maps', join(out, `${name}.js`), ...args], {
    cwd: work,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    encoding: 'utf8',
    timeout: 90_000,
  });

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'promptpix-build-'));
  mkdirSync(join(ROOT, 'node_modules', '.cache'), { recursive: true });
  outParent = mkdtempSync(join(ROOT, 'node_modules', '.cache', 'promptpix-build-'));
  out = join(outParent, 'dist');
  const built = build();
  expect(built.status).toBe(0);
  expect(built.stderr).toMatch(/built .*dist\/ from \d+ files/);
}, 60_000);
afterAll(() => {
  rmSync(work, { recursive: true, force: true });
  rmSync(outParent, { recursive: true, force: true });
});

it('writes one bundle and its source map per app; our packages are inside, third-party packages are required', () => {
  for (const name of BUNDLES) {
    const code = readFileSync(join(out, `${name}.js`), 'utf8');
    expect(code).toMatch(/\/\/# sourceMappingURL=.*\.js\.map\s*$/);
    expect(JSON.parse(readFileSync(join(out, `${name}.js.map`), 'utf8')).sources.some((s: string) => s.endsWith('.ts'))).toBe(true);
    expect(code).not.toMatch(/require\("@promptpix\//);
    expect(code).not.toMatch(/require\("tsx/);
  }
  const gateway = readFileSync(join(out, 'gateway.js'), 'utf8');
  for (const pkg of ['express', 'sharp', 'pg', 'bullmq', '@prisma/client/runtime/client']) expect(gateway).toContain(`require("${pkg}")`);
  // The generated Prisma client is our code (packages/db/src/generated): bundled, not required.
  expect(gateway).not.toMatch(/require\("[^"]*generated/);
  // The dashboard's browser app is not in any service bundle: the gateway serves its built files.
  for (const name of BUNDLES) {
    const sources = JSON.parse(readFileSync(join(out, `${name}.js.map`), 'utf8')).sources as string[];
    expect(sources.filter((s) => s.endsWith('.tsx') || s.includes('apps/dashboard/'))).toEqual([]);
  }
});

it('builds the dashboard to static files with hashed names, each with its gzip form, and a manifest the gateway reads', () => {
  const dir = join(out, 'dashboard');
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Record<string, string>;
  expect(Object.keys(manifest).sort()).toEqual(['app.css', 'app.js']);
  for (const [entry, file] of Object.entries(manifest)) {
    const [, hash, ext] = /^app\.([0-9a-f]{16})\.(js|css)$/.exec(file)!;
    expect(entry).toBe(`app.${ext}`);
    const body = readFileSync(join(dir, file));
    expect(body.length).toBeGreaterThan(1000);
    expect(createHash('sha256').update(body).digest('hex').slice(0, 16)).toBe(hash);
    expect(gunzipSync(readFileSync(join(dir, `${file}.gz`))).equals(body)).toBe(true);
  }
  expect(readdirSync(dir).sort()).toEqual(['manifest.json', ...Object.values(manifest).flatMap((f) => [f, `${f}.gz`])].sort());
  // Browser code: no require of a node module, no JSX left.
  const js = readFileSync(join(dir, manifest['app.js']), 'utf8');
  expect(js).not.toMatch(/\brequire\(/);
  expect(js).not.toContain('jsxImportSource');
});

it('builds the page script to one minified, self-contained file under 5 KB gzipped; no service bundle loads esbuild', () => {
  const code = readFileSync(join(out, 'service-client.js'), 'utf8');
  expect(code.startsWith('"use strict";(()=>{')).toBe(true);
  expect(code).not.toMatch(/\brequire\(|\bimport\s*[({]|\bexport\s/);
  const gzip = readFileSync(join(out, 'service-client.js.gz'));
  expect(gzip.length).toBeLessThan(5 * 1024);
  expect(gunzipSync(gzip).toString('utf8')).toBe(code);
  // The gateway serves built files: esbuild is a build tool, never loaded at run time.
  for (const name of BUNDLES) expect(readFileSync(join(out, `${name}.js`), 'utf8')).not.toMatch(/require\("esbuild"\)/);
});

it('runs on plain node: the admin CLI answers, and migrate applies the migrations to a fresh PGlite database', () => {
  const help = runBundle('admin', ['--help']);
  expect(help.status).toBe(0);
  expect(help.stdout).toContain('Usage: npm run --silent admin');

  // Finds prisma/migrations from the bundle, loads PGlite's and the schema engine's wasm from node_modules.
  const migrated = runBundle('migrate', [], { DATA_DIR: join(work, 'data') });
  expect(migrated.stderr).toBe('');
  expect(migrated.status).toBe(0);
  const applied = JSON.parse(migrated.stdout.trim()).applied as string[];
  expect(applied.length).toBeGreaterThan(0);
  expect(existsSync(join(work, 'data', 'db', 'PG_VERSION'))).toBe(true);
}, 120_000);

it('--if-stale rebuilds only when a source the last build read is newer than the build', () => {
  expect(build('--if-stale')).toMatchObject({ status: 0, stderr: '' });

  const stampPath = join(out, 'build-inputs.json');
  const stamp = JSON.parse(readFileSync(stampPath, 'utf8'));
  expect(stamp.inputs).toEqual(
    expect.arrayContaining([
      'apps/gateway/src/main.ts',
      'packages/core/src/index.ts',
      'scripts/build.mjs',
      'apps/dashboard/src/main.tsx',
      'apps/dashboard/scripts/build.mjs',
    ]),
  );
  // Every input is now newer than this record says the build was.
  writeFileSync(stampPath, JSON.stringify({ ...stamp, builtAtMs: 0 }));
  const rebuilt = build('--if-stale');
  expect(rebuilt.status).toBe(0);
  expect(rebuilt.stderr).toMatch(/rebuilt .*dist\/ \(.+ changed\)/);
  expect(JSON.parse(readFileSync(stampPath, 'utf8')).builtAtMs).toBeGreaterThan(0);

  rmSync(join(out, 'worker.js'));
  expect(build('--if-stale').stderr).toMatch(/rebuilt .*\(worker\.js missing\)/);
  expect(existsSync(join(out, 'worker.js'))).toBe(true);
  rmSync(join(out, 'dashboard'), { recursive: true });
  expect(build('--if-stale').stderr).toMatch(/rebuilt .*\(dashboard\/manifest\.json missing\)/);
  expect(existsSync(join(out, 'dashboard', 'manifest.json'))).toBe(true);
});

it('npm start, the start:* scripts, admin and db:migrate run the bundles with plain node, after the stale check', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string>; dependencies: Record<string, string> };
  const scripts = pkg.scripts;
  // The long-running services cap glibc's malloc arenas (an operator's own value wins); `exec`
  // replaces npm's shell, so the signals npm forwards reach node itself.
  expect(scripts['start:worker']).toBe('MALLOC_ARENA_MAX=${MALLOC_ARENA_MAX:-2} exec node --enable-source-maps dist/worker.js');
  // The gateway also runs under a heap limit, placed first in NODE_OPTIONS so an operator's own wins.
  expect(scripts['start:gateway']).toBe(
    `MALLOC_ARENA_MAX=\${MALLOC_ARENA_MAX:-2} NODE_OPTIONS="--max-old-space-size=128 --max-semi-space-size=16 \${NODE_OPTIONS:-}" exec node --enable-source-maps dist/gateway.js`,
  );
  // The embedded server also returns freed large blocks to the system and runs under the same heap
  // limit (docs/performance.md, "The embedded default").
  expect(scripts.start).toBe(
    `MALLOC_ARENA_MAX=\${MALLOC_ARENA_MAX:-2} MALLOC_MMAP_THRESHOLD_=\${MALLOC_MMAP_THRESHOLD_:-131072} MALLOC_TRIM_THRESHOLD_=\${MALLOC_TRIM_THRESHOLD_:-131072} NODE_OPTIONS="--max-old-space-size=128 --max-semi-space-size=16 \${NODE_OPTIONS:-}" exec node --enable-source-maps dist/server.js`,
  );
  for (const [script, bundle] of [
    ['admin', 'admin'],
    ['db:migrate', 'migrate'],
  ])
    expect(scripts[script]).toBe(`node --enable-source-maps dist/${bundle}.js`);
  for (const script of ['start', 'start:gateway', 'start:worker', 'admin', 'db:migrate'])
    expect(scripts[`pre${script}`]).toBe('node scripts/build.mjs --if-stale');
  expect(scripts.build).toBe('node scripts/build.mjs');
  expect(Object.keys(pkg.dependencies)).not.toContain('tsx');
});

it.each([
  ['start:gateway', 'gateway'],
  ['start', 'server'],
])("%s's heap limit is the default, and an operator's NODE_OPTIONS overrides it", (name, bundle) => {
  const script = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts[name];
  // The script as npm's shell runs it, with the bundle swapped for a print of V8's heap limit.
  const probe = script.replace(`--enable-source-maps dist/${bundle}.js`, `-e "console.log(require('v8').getHeapStatistics().heap_size_limit / 2 ** 20)"`);
  expect(probe).not.toBe(script);
  const heapLimitMb = (nodeOptions?: string) => {
    const env = { ...process.env };
    delete env.NODE_OPTIONS;
    if (nodeOptions !== undefined) env.NODE_OPTIONS = nodeOptions;
    return Number(execFileSync('sh', ['-c', probe], { env, encoding: 'utf8' }).trim());
  };
  const unlimited = Number(
    execFileSync(process.execPath, ['-e', "console.log(require('v8').getHeapStatistics().heap_size_limit / 2 ** 20)"], { encoding: 'utf8' }).trim(),
  );
  const byDefault = heapLimitMb();
  // The limit is the old generation plus the young generation (three semi-spaces). Node 22+ sizes
  // the semi-space from the machine's memory (up to 64 MB: a 320 MB limit); the flag keeps Node
  // 20's 16 MB, so every Node line gets the same 176 MB.
  expect(byDefault).toBe(128 + 3 * 16);
  expect(byDefault).toBeLessThan(unlimited);
  expect(heapLimitMb('--max-old-space-size=512')).toBeGreaterThanOrEqual(512);
  expect(heapLimitMb('--enable-source-maps')).toBe(byDefault);
});
