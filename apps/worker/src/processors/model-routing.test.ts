import { createBackendBreaker, createMemoryBreakerStore, PermanentJobError, type BreakerStore, type ImageModel } from '@promptpix/core';
import { createModelRegistry, PermanentModelError } from '@promptpix/models';
import { createModelRouter, modelDownMessage } from './model-routing';

const policy = { failures: 1, windowMs: 60_000, coolOffMs: 10_000, trialMs: 60_000 };
const fake = (name: string): ImageModel => ({ name, generate: async () => ({ data: Buffer.alloc(0), width: 1, height: 1 }) });
const registry = createModelRegistry(
  [
    { id: 'hosted', config: { provider: 'procedural' } },
    { id: 'gpu', config: { provider: 'procedural' }, fallback: 'hosted' },
    { id: 'lab', config: { provider: 'procedural' } },
  ],
  'hosted',
  (config) => fake(config.provider),
);

function routerWith(store: BreakerStore = createMemoryBreakerStore()) {
  const breaker = createBackendBreaker({ store, policy, now: () => 0 });
  const errors: unknown[] = [];
  const defaultModel = fake('the process default');
  return { breaker, errors, defaultModel, router: createModelRouter({ registry, defaultModel, breaker, onBreakerError: (e) => errors.push(e) }) };
}

describe('createModelRouter', () => {
  it.each([
    ['no model: the default, as the process wraps it', undefined, [], 'hosted', undefined],
    ['a named model', 'lab', [], 'lab', undefined],
    ['a down model with a fallback: the fallback', 'gpu', ['gpu'], 'hosted', 'gpu'],
  ])('%s', async (_name, requested, down, id, fallbackFrom) => {
    const { router, breaker } = routerWith();
    for (const backend of down) await breaker.record(backend, 'transient');
    const routed = await router.pick(requested);
    expect([routed.id, routed.fallbackFrom]).toEqual([id, fallbackFrom]);
  });

  it('the default id routes to the process default model (so its instrumentation applies)', async () => {
    const { router, defaultModel } = routerWith();
    expect((await router.pick(undefined)).model).toBe(defaultModel);
  });

  it.each([
    ['a down model without a fallback', 'lab', ['lab'], modelDownMessage('lab')],
    ['a down model whose fallback is down too', 'gpu', ['gpu', 'hosted'], modelDownMessage('gpu')],
    ['a model no longer served', 'gone', [], 'Image generation failed: the model "gone" is no longer served'],
  ])('%s fails the job at once', async (_name, requested, down, message) => {
    const { router, breaker } = routerWith();
    for (const backend of down) await breaker.record(backend, 'transient');
    await expect(router.pick(requested)).rejects.toEqual(new PermanentJobError(message));
  });

  it('a breaker store that cannot be read lets the call through and says so', async () => {
    const broken: BreakerStore = { read: () => Promise.reject(new Error('redis down')), readMany: () => Promise.reject(new Error('redis down')), swap: () => Promise.reject(new Error('redis down')) };
    const { router, errors } = routerWith(broken);
    const routed = await router.pick('lab');
    expect(routed.id).toBe('lab');
    await routed.settle(new Error('HTTP 500'), false);
    expect(errors).toHaveLength(2);
  });

  it('a cancelled call tells the breaker nothing; a refusal counts as an answer', async () => {
    const { router, breaker } = routerWith();
    await (await router.pick('lab')).settle(new Error('aborted'), true);
    expect(await breaker.health(['lab'])).toEqual({ lab: 'up' });
    await (await router.pick('lab')).settle(new PermanentModelError('content policy', { status: 400 }), false);
    expect(await breaker.health(['lab'])).toEqual({ lab: 'up' });
    await (await router.pick('lab')).settle(new Error('HTTP 503'), false);
    expect(await breaker.health(['lab'])).toEqual({ lab: 'down' });
  });
});
