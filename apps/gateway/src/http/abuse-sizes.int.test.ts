/**
 * A stranger asking one image for every size it can: derived sizes are free, so they are bounded
 * per original, and the original stays the cache's answer for its own size however many there are.
 */
import request from 'supertest';
import { MAX_DERIVED_PER_IMAGE } from '@promptpix/core';
import { SHAPES, startTestService, type TestAccount, type TestService } from '@promptpix/server/src/test-service';

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
    const viaGenerate = await request(service.baseUrl).post('/api/v1/generate').set('Authorization', `Bearer ${account.secretKey}`).send({ prompt: 'one lighthouse, many sizes', width: 256, height: 256, format: 'png' });
    expect(viaGenerate.status).toBe(202);
    expect((await service.waitForJob(viaGenerate.body.jobId, account.secretKey)).imageId).toBe(original.imageId);
    expect(viaGenerate.headers['x-quota-used']).toBe(String(1 + generated));
  });
});
