import request from 'supertest';
import { SHAPES, startTestService, type TestAccount, type TestService } from '@promptpix/server/testing';

describe.each(SHAPES)('seed and negativePrompt (%s)', (shape) => {
  let service: TestService;
  let alice: TestAccount;
  let bob: TestAccount;

  beforeAll(async () => {
    service = await startTestService(shape);
    [alice, bob] = [await service.createAccount(), await service.createAccount()];
  });
  afterAll(() => service.stop());

  const generate = async (body: object, account = alice) => {
    const started = await request(service.baseUrl).post('/api/v1/generate').set('Authorization', `Bearer ${account.secretKey}`).send(body);
    expect(started.status).toBe(202);
    return service.waitForJob(started.body.jobId, account.secretKey);
  };
  const scene = { prompt: 'a tin robot watering tulips', width: 512, height: 512, style: 'watercolor' };

  it('the same prompt, style, seed and size give the same image, and the job reports the seed', async () => {
    const mine = await generate({ ...scene, seed: 4294967295 });
    expect(mine).toMatchObject({ status: 'completed', seed: 4294967295 });
    // Another account has no cache to share: it generates, and gets the same bytes (the same content-addressed file).
    const calls = service.modelCalls();
    const theirs = await generate({ ...scene, seed: 4294967295 }, bob);
    expect(service.modelCalls()).toBe(calls + 1);
    expect(theirs.imageUrl).toBe(mine.imageUrl);
    expect(theirs.imageId).not.toBe(mine.imageId);
  });

  it('a seed is part of the cache key when given; without one any seed is a hit', async () => {
    const first = await generate({ ...scene, seed: 1 });
    const calls = service.modelCalls();
    const other = await generate({ ...scene, seed: 2 });
    expect(service.modelCalls()).toBe(calls + 1);
    expect(other.imageUrl).not.toBe(first.imageUrl);
    const again = await generate({ ...scene, seed: 1 });
    const anySeed = await generate(scene);
    expect(service.modelCalls()).toBe(calls + 1);
    expect(again.imageId).toBe(first.imageId);
    expect(again.seed).toBe(1);
    expect([1, 2, 4294967295]).toContain(anySeed.seed);
  });

  it('a negative prompt is part of the cache key; without a seed the worker draws one and reports it', async () => {
    const plain = await generate({ prompt: 'a quiet harbour', width: 512, height: 512 });
    expect(plain.seed).toBeGreaterThanOrEqual(0);
    expect(plain.seed).toBeLessThanOrEqual(4294967295);
    const calls = service.modelCalls();
    const without = await generate({ prompt: 'a quiet harbour', width: 512, height: 512, negativePrompt: 'boats' });
    expect(service.modelCalls()).toBe(calls + 1);
    expect(without.imageId).not.toBe(plain.imageId);
    const same = await generate({ prompt: 'a quiet harbour', width: 512, height: 512, negativePrompt: '  boats ' });
    expect(service.modelCalls()).toBe(calls + 1);
    expect(same.imageId).toBe(without.imageId);
  });

  it('render and embed take them too', async () => {
    const made = await generate({ ...scene, seed: 77 });
    const rendered = await request(service.baseUrl)
      .get('/api/v1/render')
      .query({ prompt: scene.prompt, style: 'watercolor', width: 512, height: 512, seed: 77, key: alice.secretKey });
    expect(rendered.status).toBe(302);
    expect(rendered.headers.location).toBe(made.imageUrl);
    const resolved = await request(service.baseUrl)
      .post('/api/v1/embed/resolve')
      .set('Authorization', `Bearer ${alice.publishableKey}`)
      .send({
        elements: [
          { id: 'a', prompt: scene.prompt, style: 'watercolor', width: 512, height: 512, seed: 77 },
          { id: 'b', prompt: scene.prompt, style: 'watercolor', width: 512, height: 512, seed: 78 },
        ],
      });
    expect(resolved.body.results[0]).toEqual({ id: 'a', status: 'ready', imageUrl: made.imageUrl, imageId: made.imageId });
    expect(resolved.body.results[1].status).toBe('generating');
  });

  it.each([
    ['seed -1', { seed: -1 }, 'seed', 'Must be between 0 and 4294967295'],
    ['seed 2^32', { seed: 4294967296 }, 'seed', 'Must be between 0 and 4294967295'],
    ['seed 1.5', { seed: 1.5 }, 'seed', 'Expected an integer'],
    ['seed "7"', { seed: '7' }, 'seed', 'Expected an integer'],
    ['an empty negativePrompt', { negativePrompt: '' }, 'negativePrompt', 'Must be 1 to 2000 characters'],
    ['a negativePrompt of 2001 characters', { negativePrompt: 'x'.repeat(2001) }, 'negativePrompt', 'Must be 1 to 2000 characters'],
  ])('%s is a 400 naming the field', async (_label, extra, field, message) => {
    const answer = await request(service.baseUrl)
      .post('/api/v1/generate')
      .set('Authorization', `Bearer ${alice.secretKey}`)
      .send({ prompt: 'x', ...extra });
    expect(answer.status).toBe(400);
    expect(answer.body.details.fieldErrors[field]).toEqual([message]);
  });
});
