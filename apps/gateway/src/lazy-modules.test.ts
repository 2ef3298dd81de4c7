/**
 * The gateway loads sharp (libvips), nodemailer and esbuild's API at their first use, not at
 * start (docs/performance.md, "The gateway (production shape)"): each is resident memory for the
 * life of the process. The gateway's modules are bundled the way `npm run build` bundles them
 * (third-party packages required from node_modules) and loaded by plain node in a child process,
 * whose own module cache and /proc/self/maps say what it loaded, before and after first use.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';

const ROOT = resolve(__dirname, '../../..');

/** What main.ts imports, without starting the process. */
const ENTRY = `
export * from './apps/gateway/src/app';
export * from './apps/gateway/src/build';
export * from './apps/gateway/src/style-previews';
export * from '@promptpix/runtime';
export * from '@promptpix/runtime/process';
export { encodeImage } from '@promptpix/models';
export { createOutboxMailer } from '@promptpix/runtime/mail';
`;

/** Run by plain node: loads the bundle, encodes an image, writes a mail; prints what was loaded at each step. */
const PROBE = `
const { readFileSync, readdirSync } = require('node:fs');
const [bundle, outbox] = process.argv.slice(1);
const loaded = () => ({
  sharp: Object.keys(require.cache).some((p) => p.includes('/node_modules/sharp/')),
  libvips: readFileSync('/proc/self/maps', 'utf8').includes('libvips'),
  nodemailer: Object.keys(require.cache).some((p) => p.includes('/node_modules/nodemailer/')),
  esbuild: Object.keys(require.cache).some((p) => p.includes('/node_modules/esbuild/')),
});
const gateway = require(bundle);
const steps = { atStart: loaded() };
const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
(async () => {
  const encoded = await gateway.encodeImage(png, { width: 8, height: 8, format: 'webp' });
  steps.afterEncode = { ...loaded(), contentType: encoded.contentType, bytes: encoded.data.length };
  const quiet = { debug() {}, info() {}, warn() {}, error() {} };
  await gateway.createOutboxMailer({ outboxDir: outbox, from: 'noreply@pix.example.com' }, quiet).send({ to: 'a@example.com', subject: 'Hello', text: 'Hi' });
  steps.afterMail = { ...loaded(), outbox: readdirSync(outbox).filter((f) => f.endsWith('.eml')).length };
  process.stdout.write(JSON.stringify(steps));
})();
`;

let outParent: string;
let outbox: string;

beforeAll(async () => {
  mkdirSync(join(ROOT, 'node_modules', '.cache'), { recursive: true });
  // Inside the checkout, so that the bundle finds the third-party packages in node_modules.
  outParent = mkdtempSync(join(ROOT, 'node_modules', '.cache', 'promptpix-lazy-'));
  outbox = mkdtempSync(join(tmpdir(), 'promptpix-lazy-outbox-'));
  await build({
    absWorkingDir: ROOT,
    stdin: { contents: ENTRY, resolveDir: ROOT, loader: 'ts' },
    outfile: join(outParent, 'gateway-modules.js'),
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    logLevel: 'silent',
    plugins: [
      {
        name: 'third-party-external',
        setup(b) {
          b.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith('@promptpix/') ? undefined : { path: args.path, external: true }));
        },
      },
    ],
  });
}, 60_000);
afterAll(() => {
  rmSync(outParent, { recursive: true, force: true });
  rmSync(outbox, { recursive: true, force: true });
});

it('starts without sharp, libvips, nodemailer or esbuild, and loads each when it is first needed', () => {
  const run = spawnSync(process.execPath, ['-e', PROBE, join(outParent, 'gateway-modules.js'), outbox], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  const steps = JSON.parse(run.stdout);
  expect(steps.atStart).toEqual({ sharp: false, libvips: false, nodemailer: false, esbuild: false });
  // The image is still encoded: sharp is loaded by its first use.
  expect(steps.afterEncode).toMatchObject({ sharp: true, libvips: true, nodemailer: false, contentType: 'image/webp' });
  expect(steps.afterEncode.bytes).toBeGreaterThan(0);
  expect(steps.afterMail).toMatchObject({ nodemailer: true, outbox: 1 });
}, 60_000);
