/**
 * The built package (packages/sdk/dist, as `npm install` builds it) from plain `node`: no tsx, no
 * bundler. It is built afresh from these sources, then imported as an ES module and required as
 * CommonJS by child processes that call the real service, and its type declarations are checked
 * from a consumer compiled the way Node resolves packages (node16).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { startTestService, type TestAccount, type TestService } from '@promptpix/server/testing';

const run = promisify(execFile);
const SDK_ROOT = join(__dirname, '..');
const REPO_ROOT = join(SDK_ROOT, '..', '..');

jest.setTimeout(120_000);

let service: TestService;
let account: TestAccount;

/** Runs `code` in a plain node process from the repository root, so `@promptpix/sdk` resolves as any dependency would. */
async function plainNode(kind: 'esm' | 'cjs', code: string): Promise<any> {
  const args = kind === 'esm' ? ['--input-type=module', '-e', code] : ['-e', code];
  // No NODE_OPTIONS: nothing (tsx, a test loader) may help the child load TypeScript.
  const env = { PATH: process.env.PATH, BASE: service.baseUrl, SECRET: account.secretKey, PUBLISHABLE: account.publishableKey };
  const { stdout } = await run(process.execPath, args, { cwd: REPO_ROOT, env });
  return JSON.parse(stdout);
}

beforeAll(async () => {
  await run(process.execPath, [join(SDK_ROOT, 'scripts', 'build.mjs')], { cwd: REPO_ROOT });
  service = await startTestService('embedded', { MODEL_LATENCY_MS: '200' });
  account = await service.createAccount();
});
afterAll(() => service?.stop());

describe('@promptpix/sdk from plain node', () => {
  it('imports as an ES module and follows a generation through the real service', async () => {
    const result = await plainNode(
      'esm',
      `
      import { PromptPix, NotFoundError } from '@promptpix/sdk';
      const secret = new PromptPix({ baseUrl: process.env.BASE, apiKey: process.env.SECRET });
      const publishable = new PromptPix({ baseUrl: process.env.BASE, apiKey: process.env.PUBLISHABLE });
      const health = await secret.health();
      const { jobId } = await secret.generate({ prompt: 'a compass rose', width: 256, height: 256 });
      const statuses = [];
      for await (const job of publishable.jobEvents(jobId)) statuses.push(job.status);
      const missing = await secret.job('00000000-0000-4000-8000-000000000000').catch((error) => error);
      // Bytes go up as multipart through Node's own FormData and Blob, then the edit is a job like any.
      const sharp = (await import('sharp')).default;
      const image = await sharp({ create: { width: 256, height: 256, channels: 3, background: '#2a7' } }).png().toBuffer();
      const upload = await secret.upload(image);
      const edit = await secret.edit({ prompt: 'a compass rose, redrawn', image, strength: 0.5, width: 256, height: 256 });
      const edited = await secret.waitForImage(edit.jobId);
      console.log(JSON.stringify({ health, statuses, notFound: missing instanceof NotFoundError, status: missing.status, upload: [upload.width, upload.height], edited: edited.status }));
      `,
    );
    expect(result).toEqual({
      health: { status: 'ok', service: expect.any(String), timestamp: expect.any(String) },
      statuses: expect.arrayContaining(['completed']),
      notFound: true,
      status: 404,
      upload: [256, 256],
      edited: 'completed',
    });
    expect(result.statuses.at(-1)).toBe('completed');
  });

  it('requires as CommonJS', async () => {
    const result = await plainNode(
      'cjs',
      `
      const { PromptPix, PromptPixError } = require('@promptpix/sdk');
      const pp = new PromptPix({ baseUrl: process.env.BASE, apiKey: process.env.SECRET });
      pp.health().then((health) => console.log(JSON.stringify({ health, url: pp.renderUrl({ prompt: 'a fox', seed: 3 }), errors: typeof PromptPixError })));
      `,
    );
    expect(result).toEqual({
      health: expect.objectContaining({ status: 'ok' }),
      url: `${service.baseUrl}/api/v1/render?prompt=a+fox&seed=3&key=${account.secretKey}`,
      errors: 'function',
    });
  });

  it('ships type declarations that a TypeScript consumer resolving like Node (node16) type-checks against', () => {
    const dir = join(SDK_ROOT, 'dist', 'consumer-check');
    mkdirSync(dir, { recursive: true });
    const consumer = (name: string, code: string) => {
      writeFileSync(join(dir, name), code);
      return join(dir, name);
    };
    const good = [
      consumer(
        'esm.mts',
        `import { PromptPix, type JobProgress, type Upload, type GenerateResult } from '@promptpix/sdk';\nconst pp = new PromptPix({ baseUrl: 'https://h', apiKey: 'k' });\nexport const events: AsyncGenerator<JobProgress> = pp.jobEvents('j');\nexport const health: Promise<{ status: 'ok' }> = pp.health();\nexport const upload: Promise<Upload> = pp.upload(new Uint8Array(1));\nexport const edit: Promise<GenerateResult> = pp.edit({ prompt: 'p', image: [new Blob([]), 'id'], mask: 'm', background: 'transparent' });\nexport const upscale: Promise<GenerateResult> = pp.upscale('i', { factor: 4 });\n`,
      ),
      consumer(
        'cjs.cts',
        `import { PromptPix } from '@promptpix/sdk';\nexport const url: string = new PromptPix({ baseUrl: 'https://h', apiKey: 'k' }).renderUrl({ prompt: 'a', seed: 1, negativePrompt: 'b' });\n`,
      ),
    ];
    const bad = consumer(
      'wrong.mts',
      `import { PromptPix } from '@promptpix/sdk';\nexport const url: number = new PromptPix({ baseUrl: 'https://h', apiKey: 'k' }).renderUrl({ prompt: 'a' });\n`,
    );
    const diagnostics = ts.getPreEmitDiagnostics(
      ts.createProgram([...good, bad], {
        module: ts.ModuleKind.Node16,
        moduleResolution: ts.ModuleResolutionKind.Node16,
        target: ts.ScriptTarget.ES2022,
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: [],
      }),
    );
    // The good consumers check clean; the wrong one fails, so the declarations are read, not skipped as \`any\`.
    expect(diagnostics.map((d) => [d.file?.fileName, ts.flattenDiagnosticMessageText(d.messageText, '\n')])).toEqual([
      [bad, "Type 'string' is not assignable to type 'number'."],
    ]);
  });
});
