/**
 * The OpenAI-compatible surface against the running service, with the official `openai` client:
 * what a tool pointed at `<base>/v1` sees, on both shapes.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import OpenAI from 'openai';
import sharp from 'sharp';
import { ErrorMessages } from '@promptpix/contracts';
import { publishedErrorResponse, publishedImagesResponse, publishedModelList } from './openai-published';
import { SHAPES, startTestService, TEST_ADMIN_TOKEN, type TestAccount, type TestService } from '@promptpix/server/testing';

jest.setTimeout(120_000);

const ROOT = join(__dirname, '../../../../..');
const run = promisify(execFile);
/** The fenced blocks of docs/api/openai-compatible.md with this info string. */
const examples = (info: string) =>
  [...readFileSync(join(ROOT, 'docs/api/openai-compatible.md'), 'utf8').matchAll(/```(.*)\n([\s\S]*?)```/g)].filter((m) => m[1] === info).map((m) => m[2]);

/** What the SDK throws, as a plain object to compare. */
async function raised(call: Promise<unknown>) {
  const error = await call.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof OpenAI.APIError)) throw new Error(`expected an APIError, got ${String(error)}`);
  // The body's `error` is OpenAI's published error object.
  publishedErrorResponse.parse({ error: error.error });
  return { error, status: error.status, type: error.type, param: error.param, code: error.code, message: error.message, headers: error.headers };
}

/** A body with this service's sizes and extensions, which the SDK's types do not list. */
const extended = (body: Record<string, unknown>) => body as unknown as OpenAI.ImageGenerateParamsNonStreaming;

const decoded = async (file: Buffer) => {
  const { width, height, format } = await sharp(file).metadata();
  return { width, height, format };
};

describe.each(SHAPES)('the OpenAI-compatible Images API with the openai client (%s)', (shape) => {
  let service: TestService;
  let account: TestAccount;
  const client = (apiKey: string) => new OpenAI({ apiKey, baseURL: `${service.baseUrl}/v1`, maxRetries: 0 });
  const quotaUsed = async (handle: string) => (await service.admin('GET', `/admin/api/v1/accounts/${handle}`)).body.quotaUsed as number;

  beforeAll(async () => {
    service = await startTestService(shape);
    account = await service.createAccount({ plan: 'business', monthlyGenerations: 20 });
  });
  afterAll(() => service.stop());

  it('lists the running model, retrieves it, and generates with the listed id: a URL to a PNG of the requested size', async () => {
    const openai = client(account.secretKey);
    const models = await openai.models.list();
    expect(models.data).toEqual([{ id: 'procedural', object: 'model', created: expect.any(Number), owned_by: 'promptpix' }]);
    expect(publishedModelList.parse({ object: 'list', data: models.data })).toBeTruthy();
    expect(await openai.models.retrieve(models.data[0].id)).toEqual(models.data[0]);

    const { data: images, response } = await openai.images
      .generate({ model: models.data[0].id, prompt: 'a lighthouse on a cliff at dusk', size: '512x512' })
      .withResponse();
    expect(images.data).toHaveLength(1);
    expect(publishedImagesResponse.parse(images)).toEqual(images);
    const file = await fetch(images.data![0].url!);
    expect(file.status).toBe(200);
    expect(await decoded(Buffer.from(await file.arrayBuffer()))).toEqual({ width: 512, height: 512, format: 'png' });
    expect(images.output_format).toBe('png');
    // What the built-in model drew, in OpenAI's field.
    expect(images.data![0].revised_prompt).toBe('a lighthouse on a cliff, sunset palette');
    expect(response.headers.get('x-quota-used')).toBe('1');
    expect(response.headers.get('x-quota-limit')).toBe('20');
    expect(response.headers.get('x-ratelimit-limit')).toBe('300');
  });

  it('answers b64_json that decodes to the requested size and format', async () => {
    const images = await client(account.secretKey).images.generate(
      extended({ prompt: 'a red kite over a beach', size: '256x384', output_format: 'webp', response_format: 'b64_json' }),
    );
    expect(images.data![0].url).toBeUndefined();
    expect(images.data![0].revised_prompt).toBe('a red kite, sea');
    expect(publishedImagesResponse.parse(images)).toEqual(images);
    expect(await decoded(Buffer.from(images.data![0].b64_json!, 'base64'))).toEqual({ width: 256, height: 384, format: 'webp' });
    const jpeg = await client(account.secretKey).images.generate(
      extended({ prompt: 'a red kite over a beach', size: '256x384', output_format: 'jpeg', response_format: 'b64_json' }),
    );
    expect(await decoded(Buffer.from(jpeg.data![0].b64_json!, 'base64'))).toEqual({ width: 256, height: 384, format: 'jpeg' });
  });

  it('answers a repeated request from the cache: the same image, no model call, no quota', async () => {
    const openai = client(account.secretKey);
    // `style` here is one of this service's presets (an extension).
    const request = extended({ prompt: 'a windmill in a tulip field', size: '512x512', style: 'watercolor' });
    const first = await openai.images.generate(request);
    const [calls, used] = [service.modelCalls(), await quotaUsed(account.handle)];
    const { data: second, response } = await openai.images.generate(request).withResponse();
    expect(second.data![0].url).toBe(first.data![0].url);
    // The image's record keeps what the model drew: the cache hit says it too.
    expect(second.data![0].revised_prompt).toBeDefined();
    expect(second.data![0].revised_prompt).toBe(first.data![0].revised_prompt);
    expect(service.modelCalls()).toBe(calls);
    expect(await quotaUsed(account.handle)).toBe(used);
    expect(response.headers.get('x-quota-used')).toBe(String(used));
  });

  it('n=2 makes two distinct takes, each a generation counted against the quota; with the first cached, one more', async () => {
    const openai = client(account.secretKey);
    const [calls, used] = [service.modelCalls(), await quotaUsed(account.handle)];
    const two = await openai.images.generate({ prompt: 'a paper boat on a puddle', n: 2, size: '256x256' });
    const urls = two.data!.map((image) => image.url);
    expect(new Set(urls).size).toBe(2);
    expect(service.modelCalls() - calls).toBe(2);
    expect(await quotaUsed(account.handle)).toBe(used + 2);

    // The cache answers the first take with the newest image of the prompt; the second is new.
    const again = await openai.images.generate({ prompt: 'a paper boat on a puddle', n: 2, size: '256x256' });
    expect(urls).toContain(again.data![0].url);
    expect(urls).not.toContain(again.data![1].url);
    expect(await quotaUsed(account.handle)).toBe(used + 3);

    // With a seed the takes are that seed and the next: asked again, the cache answers both, free.
    const seeded = await openai.images.generate(extended({ prompt: 'a paper boat on a puddle', n: 2, size: '256x256', seed: 7 }));
    expect(await quotaUsed(account.handle)).toBe(used + 5);
    const seededAgain = await openai.images.generate(extended({ prompt: 'a paper boat on a puddle', n: 2, size: '256x256', seed: 7 }));
    expect(seededAgain.data!.map((image) => image.url)).toEqual(seeded.data!.map((image) => image.url));
    expect(await quotaUsed(account.handle)).toBe(used + 5);
  });

  it("raises the SDK error class of each failure, in OpenAI's envelope", async () => {
    const openai = client(account.secretKey);
    const wrongKey = await raised(client(`sk_live_${'x'.repeat(40)}`).images.generate({ prompt: 'x' }));
    expect(wrongKey).toMatchObject({
      status: 401,
      type: 'invalid_request_error',
      code: 'invalid_api_key',
      message: expect.stringContaining(ErrorMessages.invalidKey),
    });
    expect(wrongKey.error).toBeInstanceOf(OpenAI.AuthenticationError);

    for (const [body, param] of [
      [{ prompt: 'x', size: '100x100' }, 'size'],
      [{ prompt: 'x', size: '1000x1000' }, 'size'],
      [{ prompt: 'x', n: 5 }, 'n'],
      [{ prompt: '' }, 'prompt'],
      [{ prompt: 'x', response_format: 'gif' }, 'response_format'],
      [{ prompt: 'x', output_format: 'gif' }, 'output_format'],
      [{ prompt: 'x', style: 'no-such-style' }, 'style'],
      [{ prompt: 'x', character: '00000000-0000-4000-8000-000000000000' }, 'character'],
    ] as const) {
      const bad = await raised(openai.images.generate(extended(body)));
      expect({ param: bad.param, status: bad.status, type: bad.type, cls: bad.error instanceof OpenAI.BadRequestError }).toEqual({
        param,
        status: 400,
        type: 'invalid_request_error',
        cls: true,
      });
    }
    const unknownModel = await raised(openai.images.generate({ prompt: 'x', model: 'no-such-model' }));
    expect(unknownModel).toMatchObject({ status: 400, param: 'model', code: 'model_not_found' });

    const publishable = await raised(client(account.publishableKey).images.generate({ prompt: 'x' }));
    expect(publishable.error).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(publishable.message).toContain(ErrorMessages.publishableForbidden);
    expect((await raised(client(account.publishableKey).models.list())).error).toBeInstanceOf(OpenAI.PermissionDeniedError);

    // A revoke, a suspension and a pending approval reach this door too.
    const other = await service.createAccount();
    expect((await client(other.secretKey).models.list()).data).toHaveLength(1);
    expect((await service.admin('DELETE', `/admin/api/v1/keys/${other.secretKeyId}`)).status).toBe(204);
    expect((await raised(client(other.secretKey).images.generate({ prompt: 'x' }))).error).toBeInstanceOf(OpenAI.AuthenticationError);
    const suspended = await service.createAccount();
    await service.admin('PATCH', `/admin/api/v1/accounts/${suspended.handle}`, { status: 'suspended' });
    expect(await raised(client(suspended.secretKey).images.generate({ prompt: 'x' }))).toMatchObject({
      status: 403,
      message: expect.stringContaining(ErrorMessages.suspended),
    });
    const pending = await service.createAccount({ status: 'pending' });
    expect(await raised(client(pending.secretKey).images.generate({ prompt: 'x' }))).toMatchObject({ status: 403, code: 'pending_approval' });

    const missingModel = await raised(openai.models.retrieve('no-such-model'));
    expect(missingModel.error).toBeInstanceOf(OpenAI.NotFoundError);
    expect(missingModel.code).toBe('model_not_found');
  });

  it('out of generations: RateLimitError with code insufficient_quota, Retry-After and the quota headers; nothing charged for n=2 it cannot afford', async () => {
    const broke = await service.createAccount({ monthlyGenerations: 1 });
    const openai = client(broke.secretKey);
    const refused = await raised(openai.images.generate({ prompt: 'two takes of a harbour', n: 2, size: '256x256' }));
    expect(refused.error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(refused).toMatchObject({ status: 429, type: 'insufficient_quota', code: 'insufficient_quota' });
    expect(Number(refused.headers?.get('retry-after'))).toBeGreaterThan(60);
    expect(refused.headers?.get('x-quota-limit')).toBe('1');
    expect(await quotaUsed(broke.handle)).toBe(0);

    await openai.images.generate({ prompt: 'one take of a harbour', size: '256x256' });
    const spent = await raised(openai.images.generate({ prompt: 'another harbour', size: '256x256' }));
    expect(spent).toMatchObject({ status: 429, code: 'insufficient_quota' });
    expect(spent.headers?.get('x-quota-used')).toBe('1');
  });

  it('over the per-minute rate limit: RateLimitError with code rate_limit_exceeded and Retry-After', async () => {
    const limited = await service.createAccount();
    const openai = client(limited.secretKey);
    // A free key allows 30 a minute; bad bodies count too (the limit runs before the body is read).
    for (let i = 0; i < 30; i++) expect((await raised(openai.images.generate({ prompt: 'x', n: 9 }))).status).toBe(400);
    const over = await raised(openai.images.generate({ prompt: 'x' }));
    expect(over.error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(over).toMatchObject({ status: 429, type: 'requests', code: 'rate_limit_exceeded' });
    expect(Number(over.headers?.get('retry-after'))).toBeGreaterThan(0);
    expect(over.headers?.get('x-ratelimit-remaining')).toBe('0');
  });

  it('reads no body before the key is known, bounds it after, and answers unknown /v1 paths in the envelope', async () => {
    const post = (key: string | null, body: string) =>
      fetch(`${service.baseUrl}/v1/images/generations`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(key && { authorization: `Bearer ${key}` }) },
        body,
      });
    // Unparsable and oversized bodies without a valid key are a 401: the key is checked first.
    const noKey = await post(null, '{"prompt":');
    expect([noKey.status, await noKey.json()]).toEqual([
      401,
      { error: { message: ErrorMessages.missingKey, type: 'invalid_request_error', param: null, code: 'missing_api_key' } },
    ]);
    expect((await post(`sk_live_${'y'.repeat(40)}`, JSON.stringify({ prompt: 'x'.repeat(500_000) }))).status).toBe(401);
    // Express matches paths case-insensitively; so does the rule that leaves these bodies unread.
    const shouted = await fetch(`${service.baseUrl}/V1/images/generations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"prompt":',
    });
    expect(shouted.status).toBe(401);
    const invalidJson = await post(account.secretKey, '{"prompt":');
    expect([invalidJson.status, (await invalidJson.json()).error.message]).toEqual([400, ErrorMessages.invalidJson]);
    const tooLarge = await post(account.secretKey, JSON.stringify({ prompt: 'x'.repeat(40_000) }));
    expect([tooLarge.status, (await tooLarge.json()).error.message]).toEqual([413, ErrorMessages.payloadTooLarge]);

    const unknown = await fetch(`${service.baseUrl}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${account.secretKey}` } });
    expect([unknown.status, await unknown.json()]).toEqual([
      404,
      { error: { message: ErrorMessages.notFound, type: 'invalid_request_error', param: null, code: null } },
    ]);
  });

  it("runs the documentation page's examples as written: the five lines with the official client, and the curl blocks", async () => {
    const env = {
      ...process.env,
      BASE_URL: service.baseUrl,
      SECRET_KEY: account.secretKey,
      PUBLISHABLE_KEY: account.publishableKey,
      ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    };
    const [fiveLines] = examples('js');
    expect(fiveLines).toContain("from 'openai'");
    const { stdout } = await run('node', ['--input-type=module', '-e', fiveLines], { cwd: ROOT, env });
    const file = await fetch(stdout.trim());
    expect(await decoded(Buffer.from(await file.arrayBuffer()))).toEqual({ width: 1024, height: 1024, format: 'png' });

    const runnable = examples('sh runnable');
    expect(runnable.length).toBeGreaterThan(0);
    // The edit sample writes its files where it runs.
    const cwd = mkdtempSync(join(tmpdir(), 'promptpix-openai-docs-'));
    try {
      for (const block of runnable) await run('bash', ['-c', `set -euo pipefail\n${block}`], { env, cwd });
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});
