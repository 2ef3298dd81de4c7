/**
 * Every ```sh runnable block of README.md and docs/** runs, in order, against one fresh embedded
 * service (procedural model, as `npm start` has it), so the documentation cannot drift from the
 * API. A block is bash under `set -euo pipefail` and asserts with grep/test; the variables it may
 * use are listed in docs/contributing.md ("Documentation").
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startTestService, TEST_ADMIN_TOKEN, type TestAccount, type TestService } from '../testing';
import { documentationBlocks, isRunnable, type CodeBlock } from './code-blocks';

const ROOT = resolve(__dirname, '../../../..');
const BLOCK_TIMEOUT_MS = 60_000;

interface Run {
  code: number | null;
  output: string;
}

function runBlock(block: CodeBlock, cwd: string, env: Record<string, string>): Promise<Run> {
  return new Promise((done) => {
    const child = spawn('bash', ['-c', `set -euo pipefail\n${block.code}`], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], timeout: BLOCK_TIMEOUT_MS });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('close', (code) => done({ code, output }));
  });
}

const blocks = documentationBlocks(ROOT).filter(isRunnable);

describe('documentation samples', () => {
  let service: TestService;
  let account: TestAccount;
  let cwd: string;

  beforeAll(async () => {
    // Library delay 0 so instant mode finds images the samples made a moment before.
    service = await startTestService('embedded', { LIBRARY_DELAY_SECONDS: '0' });
    // Enterprise: the highest rate limit, so the samples of every page together stay under it.
    account = await service.createAccount({ plan: 'enterprise' });
    // As an operator does after installing (README): the starter library, before the samples add theirs.
    const seeded = await fetch(`${service.baseUrl}/admin/api/v1/library/seed`, { method: 'POST', headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
    if (!seeded.ok) throw new Error(`library seed answered ${seeded.status}`);
    // A scratch directory per run for files samples write; node resolves @promptpix/sdk through the link.
    cwd = mkdtempSync(join(tmpdir(), 'promptpix-docs-'));
    symlinkSync(join(ROOT, 'node_modules'), join(cwd, 'node_modules'));
  });

  afterAll(async () => {
    await service?.stop();
    if (cwd) rmSync(cwd, { recursive: true, force: true });
  });

  it('finds runnable samples in the README and the docs', () => {
    expect(blocks.some((b) => b.file === 'README.md')).toBe(true);
    expect(new Set(blocks.map((b) => b.file)).size).toBeGreaterThan(10);
  });

  // One test per block, in document order, so a failure names its file and line.
  it.each(blocks.map((b) => [`${b.file}:${b.line}`, b] as const))('%s exits 0', async (_where, block) => {
    const env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: cwd,
      BASE_URL: service.baseUrl,
      SECRET_KEY: account.secretKey,
      PUBLISHABLE_KEY: account.publishableKey,
      ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      HANDLE: account.handle,
    };
    const run = await runBlock(block, cwd, env);
    if (run.code !== 0) throw new Error(`${block.file}:${block.line} exited ${run.code}\n--- output ---\n${run.output}\n--- block ---\n${block.code}`);
  });
});
