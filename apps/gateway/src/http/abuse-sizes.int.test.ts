/**
 * A stranger asking one image for every size it can: derived sizes are free, so they are bounded
 * per original (also when they all arrive at once), and the original stays the cache's answer for
 * its own size however many there are.
 */
import request from 'supertest';
import { MAX_DERIVED_PER_IMAGE } from '@promptpix/core';
import { SHAPES, startTestService, type TestAccount, type TestService } from '@promptpix/server/testing';

describe.each(SHAPES)('many sizes of one image (%s)', (shape) => {
  let service: TestService;
  let account: TestAccount;

  beforeAll(async () => {
    service = await startTestService(shape, { MODEL_LATENCY_MS: '0' });
    account = await service.createAccount({ plan: 'enterprise', monthlyGenerations: 100000 });
  });
  afterAll(() => service.stop());

  /** One embed element of this width (embed takes any width from 256 to 2048); resolves once its image exists. */
  const embed = async (width: number) => {
    const res = await request(service.baseUrl)
      .post('/api/v1/embed/resolve')
      .set('Authorization', `Bearer ${account.secretKey}`)
      .send({ elements: [{ id: 'a', prompt: 'one lighthouse, many sizes', width, height: 256, format: 'png' }] });
    expect(res.status).toBe(200);
    const [result] = res.body.results;
    const imageId = result.status === 'ready' ? result.imageId : (await service.waitForJob(result.jobId, account.secretKey)).imageId;
    expect(imageId).toEqual(expect.any(String));
    return { imageId: imageId as string, calls: service.modelCalls() };
  };

  it('60 sizes: the first ones are derived free, later new sizes cost a model call each batch of them, and the original is always served for its own size', async () => {
    const original = await embed(256);
    expect(original.calls).toBe(1);
    const sizes = Array.from({ length: 60 }, (_, i) => 257 + i);
    const results = [];
    for (const width of sizes) results.push(await embed(width));
    // The first MAX_DERIVED_PER_IMAGE were derived: no model call.
    expect(results[MAX_DERIVED_PER_IMAGE - 1].calls).toBe(1);
    // Free work is bounded: one charged generation per MAX_DERIVED_PER_IMAGE + 1 new sizes at most.
    const generated = results.at(-1)!.calls - 1;
    expect(generated).toBeGreaterThan(0);
    expect(generated).toBeLessThanOrEqual(Math.ceil(sizes.length / (MAX_DERIVED_PER_IMAGE + 1)));

    const again = await embed(256);
    expect(again).toEqual({ imageId: original.imageId, calls: results.at(-1)!.calls });
    const viaGenerate = await request(service.baseUrl)
      .post('/api/v1/generate')
      .set('Authorization', `Bearer ${account.secretKey}`)
      .send({ prompt: 'one lighthouse, many sizes', width: 256, height: 256, format: 'png' });
    expect(viaGenerate.status).toBe(202);
    expect((await service.waitForJob(viaGenerate.body.jobId, account.secretKey)).imageId).toBe(original.imageId);
    expect(viaGenerate.headers['x-quota-used']).toBe(String(1 + generated));
  });

  /** Each element's image once its job (if any) is done; polled one job at a time, so the key's rate limit is not spent on polls. */
  const imagesOf = async (results: Array<{ status: string; imageId?: string; jobId?: string }>, key: string) => {
    const images: string[] = [];
    for (const result of results) {
      expect(result.status).not.toBe('failed');
      images.push(result.status === 'ready' ? result.imageId! : (await service.waitForJob(result.jobId!, key)).imageId);
    }
    return images;
  };
  const quotaUsed = async (handle: string): Promise<number> => (await service.admin('GET', `/admin/api/v1/accounts/${handle}`)).body.quotaUsed;
  const resolve = (key: string, elements: Array<{ id: string; prompt: string; width: number }>) =>
    request(service.baseUrl)
      .post('/api/v1/embed/resolve')
      .set('Authorization', `Bearer ${key}`)
      .send({ elements: elements.map((e) => ({ ...e, height: 256, format: 'png' })) });

  it.each([
    ['one embed batch of 40 new sizes', 'batch'],
    ['40 concurrent requests of one new size each', 'requests'],
  ])(`%s: at most ${MAX_DERIVED_PER_IMAGE} are derived free, every other one is a charged generation`, async (_name, how) => {
    const owner = await service.createAccount({ plan: 'enterprise', monthlyGenerations: 100000 });
    const prompt = `one lighthouse, sizes at once (${how})`;
    const [original] = await imagesOf((await resolve(owner.secretKey, [{ id: 'o', prompt, width: 256 }])).body.results, owner.secretKey);
    const callsBefore = service.modelCalls();
    const elements = Array.from({ length: 40 }, (_, i) => ({ id: `e${i}`, prompt, width: 257 + i }));
    const answers = how === 'batch' ? [await resolve(owner.secretKey, elements)] : await Promise.all(elements.map((e) => resolve(owner.secretKey, [e])));
    for (const answer of answers) expect(answer.status).toBe(200);
    const images = await imagesOf(
      answers.flatMap((a) => a.body.results),
      owner.secretKey,
    );

    expect(new Set(images).size).toBe(40);
    expect(images).not.toContain(original);
    const charged = (await quotaUsed(owner.handle)) - 1;
    expect(charged).toBe(40 - MAX_DERIVED_PER_IMAGE);
    expect(service.modelCalls() - callsBefore).toBe(charged);
  });
});
