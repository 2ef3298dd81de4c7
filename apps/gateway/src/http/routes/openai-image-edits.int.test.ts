/**
 * POST /v1/images/edits with the official `openai` client (`images.edit` with `toFile` uploads),
 * against the running service. One shape: the route's files go through the upload service and
 * the generation service, whose storage and queue are proved on both shapes by uploads.int.test.ts
 * and openai-images.int.test.ts; nothing here differs between them.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import OpenAI, { toFile } from 'openai';
import sharp from 'sharp';
import { ErrorMessages, ImageInputMessages } from '@promptpix/contracts';
import { SHAPES, startTestService, type TestAccount, type TestService } from '@promptpix/server/testing';
import { publishedErrorResponse, publishedImagesResponse } from './openai-published';

jest.setTimeout(120_000);

const ROOT = join(__dirname, '../../../../..');
/** The page's example of an edit with the official client: its second `js` block. */
const editExample = () =>
  [...readFileSync(join(ROOT, 'docs/api/openai-compatible.md'), 'utf8').matchAll(/```(.*)\n([\s\S]*?)```/g)].filter((m) => m[1] === 'js').map((m) => m[2])[1];

/** A PNG whose every pixel differs from its neighbours': red = x, green = y. */
const gradient = (width: number, height: number) => {
  const pixels = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) pixels.set([x % 256, y % 256, 128], (y * width + x) * 3);
  return sharp(pixels, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
};

/** Transparent (may change) on the left half, opaque (kept) on the right. */
const leftHalfMask = (width: number, height: number) => {
  const pixels = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) for (let x = width / 2; x < width; x++) pixels[(y * width + x) * 4 + 3] = 255;
  return sharp(pixels, { raw: { width, height, channels: 4 } })
    .png()
    .toBuffer();
};

const rgbOf = async (file: Buffer) => {
  const { data, info } = await sharp(file).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, format: (await sharp(file).metadata()).format };
};

/** What the SDK throws, as a plain object to compare. */
async function raised(call: Promise<unknown>) {
  const error = await call.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof OpenAI.APIError)) throw new Error(`expected an APIError, got ${String(error)}`);
  publishedErrorResponse.parse({ error: error.error });
  return { error, status: error.status, param: error.param, code: error.code, message: error.message };
}

describe.each(SHAPES)('POST /v1/images/edits with the openai client (%s)', (shape) => {
  let service: TestService;
  let account: TestAccount;
  const client = (apiKey: string) => new OpenAI({ apiKey, baseURL: `${service.baseUrl}/v1`, maxRetries: 0 });
  const png = (bytes: Buffer, name = 'photo.png') => toFile(bytes, name, { type: 'image/png' });
  const quotaUsed = async () => (await service.admin('GET', `/admin/api/v1/accounts/${account.handle}`)).body.quotaUsed as number;
  const uploadsHeld = () => service.infra.db.prisma.upload.count({ where: { account: { handle: account.handle } } });

  beforeAll(async () => {
    service = await startTestService(shape);
    account = await service.createAccount({ plan: 'business', monthlyGenerations: 50 });
  });
  afterAll(() => service.stop());

  it('edits with a mask: b64_json of the input’s size, every pixel under the opaque half kept; the files are the account’s uploads; one generation', async () => {
    const photo = await gradient(256, 256);
    const used = await quotaUsed();
    const { data: answer, response } = await client(account.secretKey)
      .images.edit({
        image: await png(photo),
        mask: await png(await leftHalfMask(256, 256), 'mask.png'),
        prompt: 'a red barn',
        response_format: 'b64_json',
      })
      .withResponse();
    expect(publishedImagesResponse.parse(answer)).toEqual(answer);
    expect(answer.data).toHaveLength(1);
    expect(answer.data![0].url).toBeUndefined();

    const edited = await rgbOf(Buffer.from(answer.data![0].b64_json!, 'base64'));
    const input = await rgbOf(photo);
    expect([edited.width, edited.height, edited.format]).toEqual([256, 256, 'png']);
    const row = (image: typeof edited, y: number, from: number, to: number) => image.data.subarray((y * 256 + from) * 3, (y * 256 + to) * 3);
    for (let y = 0; y < 256; y++) expect(row(edited, y, 128, 256).equals(row(input, y, 128, 256))).toBe(true);
    expect(row(edited, 128, 0, 128).equals(row(input, 128, 0, 128))).toBe(false);

    expect(await quotaUsed()).toBe(used + 1);
    expect(response.headers.get('x-quota-used')).toBe(String(used + 1));
    expect(await uploadsHeld()).toBe(2);
  });

  it('without a mask, under image[] with n=2 and size auto: two distinct URLs, each the input’s size fitted to the service’s sizes', async () => {
    const [calls, used] = [service.modelCalls(), await quotaUsed()];
    // The array is sent as `image[]`. 300×200 is no size a generation may have: auto makes it 384×256 (aspect ratio kept).
    const answer = await client(account.secretKey).images.edit({ image: [await png(await gradient(300, 200))], prompt: 'a lighthouse', n: 2 });
    const urls = answer.data!.map((image) => image.url!);
    expect(new Set(urls).size).toBe(2);
    for (const url of urls) {
      const file = Buffer.from(await (await fetch(url)).arrayBuffer());
      expect(await sharp(file).metadata()).toMatchObject({ width: 384, height: 256, format: 'png' });
    }
    expect(service.modelCalls() - calls).toBe(2);
    expect(await quotaUsed()).toBe(used + 2);
  });

  it('raises BadRequestError naming mask or image; counts, sizes and a refused prompt are refused before any file is stored', async () => {
    const openai = client(account.secretKey);
    const photo = await png(await gradient(256, 256));
    const wrongSize = await raised(openai.images.edit({ image: photo, mask: await png(await leftHalfMask(384, 256), 'mask.png'), prompt: 'x' }));
    expect(wrongSize.error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(wrongSize).toMatchObject({
      status: 400,
      param: 'mask',
      message: expect.stringContaining(ImageInputMessages.maskSize({ width: 384, height: 256 }, { width: 256, height: 256 })),
    });

    const notAnImage = await raised(openai.images.edit({ image: await toFile(Buffer.from('not an image at all'), 'photo.png'), prompt: 'x' }));
    expect(notAnImage.error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(notAnImage).toMatchObject({ param: 'image', message: expect.stringContaining(ImageInputMessages.notAnImage) });
    const maskNotAnImage = await raised(openai.images.edit({ image: photo, mask: await toFile(Buffer.from('not a mask'), 'mask.png'), prompt: 'x' }));
    expect(maskNotAnImage).toMatchObject({ status: 400, param: 'mask' });

    const held = await uploadsHeld();
    const other = await png(await gradient(256, 128));
    expect(await raised(openai.images.edit({ image: [photo, other], prompt: 'x' }))).toMatchObject({
      param: 'image',
      message: expect.stringContaining(ImageInputMessages.modelTakesFewerImages('procedural', 1)),
    });
    expect((await raised(openai.images.edit({ image: other, prompt: 'x', size: '100x100' as '256x256' }))).param).toBe('size');
    expect((await raised(openai.images.edit({ image: other, prompt: 'x', response_format: 'gif' as 'url' }))).param).toBe('response_format');
    expect((await raised(openai.images.edit({ image: other, prompt: 'a portrait of a fucking wizard' }))).param).toBe('prompt');
    expect(await uploadsHeld()).toBe(held);
  });

  it("runs the documentation page's example of an edit as written", async () => {
    const example = editExample();
    expect(example).toContain('images.edit(');
    const cwd = mkdtempSync(join(tmpdir(), 'promptpix-edit-example-'));
    try {
      symlinkSync(join(ROOT, 'node_modules'), join(cwd, 'node_modules'));
      writeFileSync(join(cwd, 'photo.png'), await gradient(256, 256));
      writeFileSync(join(cwd, 'mask.png'), await leftHalfMask(256, 256));
      const env = { ...process.env, BASE_URL: service.baseUrl, SECRET_KEY: account.secretKey };
      const { stdout } = await promisify(execFile)('node', ['--input-type=module', '-e', example], { cwd, env });
      const file = Buffer.from(await (await fetch(stdout.trim())).arrayBuffer());
      expect(await sharp(file).metadata()).toMatchObject({ width: 256, height: 256, format: 'png' });
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  it('refuses a publishable key, and a request without a valid key before its body is read', async () => {
    const refused = await raised(client(account.publishableKey).images.edit({ image: await png(await gradient(256, 256)), prompt: 'x' }));
    expect(refused.error).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(refused.message).toContain(ErrorMessages.publishableForbidden);

    // Read, this body would be a 400 (a file under an unknown field); unread, it is the key's 401.
    const form = new FormData();
    form.append('file', new Blob([Buffer.from('x'.repeat(100_000))]), 'photo.png');
    const post = (headers: Record<string, string>) => fetch(`${service.baseUrl}/v1/images/edits`, { method: 'POST', headers, body: form });
    const noKey = await post({});
    expect([noKey.status, await noKey.json()]).toEqual([
      401,
      { error: { message: ErrorMessages.missingKey, type: 'invalid_request_error', param: null, code: 'missing_api_key' } },
    ]);
    const wrongKey = await post({ authorization: `Bearer sk_live_${'x'.repeat(40)}` });
    expect([wrongKey.status, (await wrongKey.json()).error.code]).toEqual([401, 'invalid_api_key']);
    const read = await post({ authorization: `Bearer ${account.secretKey}` });
    expect([read.status, (await read.json()).error.param]).toEqual([400, 'file']);
  });
});
