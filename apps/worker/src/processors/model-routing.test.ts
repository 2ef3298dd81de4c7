import {
  createBackendBreaker,
  createBackendBulkhead,
  createMemoryBreakerStore,
  DEFAULT_BREAKER_POLICY,
  isJobDeferred,
  PermanentJobError,
  TransientModelError,
  type BackendBulkhead,
  type BreakerStore,
  type ImageModel,
  type ModelRequest,
} from '@promptpix/core';
import { createMemoryPermitStore } from '@promptpix/coordination';
import { createModelRegistry, PermanentModelError } from '@promptpix/models';
import { createModelRouter, DEFER_MS, modelDownMessage, SLOW_WATCH_MS } from './model-routing';

const policy = { ...DEFAULT_BREAKER_POLICY, failures: 1, coolOffMs: 10_000, trialMs: 60_000 };
const image = { data: Buffer.alloc(0), width: 1, height: 1 };
const fake = (name: string): ImageModel => ({ name, generate: async () => image });
const SLOW_MS = 40;
const registry = createModelRegistry(
  [
    { id: 'hosted', config: { provider: 'procedural' } },
    { id: 'gpu', config: { provider: 'procedural' }, fallback: 'hosted', limits: { maxInFlightPerWorker: 1 } },
    { id: 'lab', config: { provider: 'procedural' }, limits: { slowCallMs: SLOW_MS } },
  ],
  'hosted',
  (config) => fake(config.provider),
);
const request: ModelRequest = { prompt: 'p', strength: 1, seed: 1, width: 1, height: 1 };

const bulkheads: BackendBulkhead[] = [];
afterEach(() => {
  for (const b of bulkheads.splice(0)) b.close();
});

function routerWith(options: { store?: BreakerStore; models?: Record<string, ImageModel>; failures?: number } = {}) {
  const breaker = createBackendBreaker({
    store: options.store ?? createMemoryBreakerStore(),
    policy: { ...policy, failures: options.failures ?? 1 },
    now: () => Date.now(),
  });
  const bulkhead = createBackendBulkhead({
    limits: (id) => registry.get(id)!.limits,
    store: createMemoryPermitStore(),
    now: Date.now,
    onStoreError: (e) => errors.push(e),
  });
  bulkheads.push(bulkhead);
  const errors: unknown[] = [];
  const slow: string[] = [];
  const deferred: string[] = [];
  const defaultModel = fake('the process default');
  const withModels = options.models
    ? {
        ...registry,
        get: (id: string | undefined) => {
          const r = registry.get(id);
          return r && options.models![r.id] ? { ...r, model: options.models![r.id] } : r;
        },
      }
    : registry;
  const router = createModelRouter({
    registry: withModels,
    defaultModel,
    breaker,
    bulkhead,
    onBreakerError: (e) => errors.push(e),
    onSlowCall: (id) => slow.push(id),
    onDeferred: (id) => deferred.push(id),
    random: () => 0.5,
  });
  return { breaker, bulkhead, errors, slow, deferred, defaultModel, router };
}

/** A backend that answers only when told to, or never. */
function heldModel() {
  const calls: Array<{ answer(): void; signal: AbortSignal }> = [];
  const model: ImageModel = {
    name: 'held',
    generate: (_request, signal) =>
      new Promise((resolve, reject) => {
        calls.push({ answer: () => resolve(image), signal: signal! });
        signal!.addEventListener('abort', () => reject(signal!.reason), { once: true });
      }),
  };
  return { model, calls };
}

describe('createModelRouter: breakers', () => {
  it.each([
    ['no model: the default, as the process wraps it', undefined, [], 'hosted', undefined],
    ['a named model', 'lab', [], 'lab', undefined],
    ['a down model with a fallback: the fallback', 'gpu', ['gpu'], 'hosted', 'gpu'],
  ])('%s', async (_name, requested, down, id, fallbackFrom) => {
    const { router, breaker } = routerWith();
    for (const backend of down) await breaker.record(backend, 'transient');
    const routed = await router.pick(requested);
    expect([routed.id, routed.fallbackFrom]).toEqual([id, fallbackFrom]);
    routed.release();
  });

  it('the default id routes to the process default model (so its instrumentation applies)', async () => {
    const { router, defaultModel } = routerWith();
    const routed = await router.pick(undefined);
    expect(routed.model).toBe(defaultModel);
    routed.release();
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
    const broken: BreakerStore = {
      read: () => Promise.reject(new Error('redis down')),
      readMany: () => Promise.reject(new Error('redis down')),
      swap: () => Promise.reject(new Error('redis down')),
    };
    const failing: ImageModel = { name: 'failing', generate: async () => Promise.reject(new TransientModelError('HTTP 500')) };
    const { router, errors } = routerWith({ store: broken, models: { lab: failing } });
    const routed = await router.pick('lab');
    expect(routed.id).toBe('lab');
    await expect(routed.generate(request, new AbortController().signal)).rejects.toThrow('HTTP 500');
    expect(errors).toHaveLength(2);
  });

  it('a cancelled call tells the breaker nothing; a refusal counts as an answer; a 503 counts as bad', async () => {
    let outcome: () => Promise<typeof image> = async () => image;
    const { router, breaker } = routerWith({ models: { lab: { name: 'lab', generate: () => outcome() } } });
    const cancelled = new AbortController();
    cancelled.abort();
    outcome = () => Promise.reject(new Error('aborted'));
    await expect((await router.pick('lab')).generate(request, cancelled.signal)).rejects.toThrow('aborted');
    expect(await breaker.health(['lab'])).toEqual({ lab: 'up' });
    outcome = () => Promise.reject(new PermanentModelError('content policy', { status: 400 }));
    await expect((await router.pick('lab')).generate(request, new AbortController().signal)).rejects.toThrow('content policy');
    expect(await breaker.health(['lab'])).toEqual({ lab: 'up' });
    outcome = () => Promise.reject(new TransientModelError('HTTP 503'));
    await expect((await router.pick('lab')).generate(request, new AbortController().signal)).rejects.toThrow('HTTP 503');
    expect(await breaker.health(['lab'])).toEqual({ lab: 'down' });
  });
});

describe('createModelRouter: bulkheads', () => {
  it('a backend with as many calls in flight as it may defers the next job (for one to two DEFER_MS); other models keep theirs', async () => {
    const held = heldModel();
    const { router, deferred, bulkhead } = routerWith({ models: { gpu: held.model } });
    const first = await router.pick('gpu');
    const call = first.generate(request, new AbortController().signal);
    const refused = await router.pick('gpu').catch((e: unknown) => e);
    expect(isJobDeferred(refused)).toBe(true);
    expect((refused as { delayMs: number }).delayMs).toBe(DEFER_MS * 1.5);
    expect(deferred).toEqual(['gpu']);
    const other = await router.pick('lab');
    expect(bulkhead.inFlight()).toEqual({ gpu: 1, lab: 1 });
    other.release();
    held.calls[0].answer();
    await call;
    expect(bulkhead.inFlight()).toEqual({});
    (await router.pick('gpu')).release();
  });

  it('a failed call and a call never made give their permits back', async () => {
    const failing: ImageModel = { name: 'failing', generate: async () => Promise.reject(new TransientModelError('HTTP 500')) };
    const { router, bulkhead } = routerWith({ models: { gpu: failing }, failures: 5 });
    await expect((await router.pick('gpu')).generate(request, new AbortController().signal)).rejects.toThrow('HTTP 500');
    const unused = await router.pick('gpu');
    unused.release();
    unused.release();
    expect(bulkhead.inFlight()).toEqual({});
  });

  it("the breaker's trial goes through a full bulkhead", async () => {
    const held = heldModel();
    let now = 0;
    const breaker = createBackendBreaker({ store: createMemoryBreakerStore(), policy, now: () => now });
    const bulkhead = createBackendBulkhead({
      limits: (id) => registry.get(id)!.limits,
      store: createMemoryPermitStore(),
      now: Date.now,
      onStoreError: () => undefined,
    });
    bulkheads.push(bulkhead);
    const router = createModelRouter({
      registry: { ...registry, get: (id) => ({ ...registry.get(id)!, model: held.model }) },
      defaultModel: held.model,
      breaker,
      bulkhead,
      onBreakerError: () => undefined,
    });
    const hung = await router.pick('gpu');
    void hung.generate(request, new AbortController().signal).catch(() => undefined);
    await breaker.record('gpu', 'transient');
    now = policy.coolOffMs;
    const trial = await router.pick('gpu');
    expect([trial.id, bulkhead.inFlight().gpu]).toEqual(['gpu', 2]);
    trial.release();
    hung.release();
  });
});

describe('createModelRouter: slow calls', () => {
  it('a call in flight past its slow-call threshold counts as bad at once; when that opens the breaker the call is given up', async () => {
    const held = heldModel();
    const { router, breaker, slow } = routerWith({ models: { lab: held.model } });
    const started = Date.now();
    const outcome = (await router.pick('lab')).generate(request, new AbortController().signal).catch((e: unknown) => e);
    expect(await outcome).toEqual(
      new TransientModelError(`the model "lab" was given up after ${SLOW_MS} ms: its backend was declared down while the call waited`),
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(SLOW_MS - 5);
    expect(slow).toEqual(['lab']);
    expect(await breaker.health(['lab'])).toEqual({ lab: 'down' });
  });

  it('a slow call whose breaker is still closed waits on, is given up once another call opens the breaker, and is counted once', async () => {
    const held = heldModel();
    const { router, breaker } = routerWith({ models: { lab: held.model }, failures: 2 });
    const first = (await router.pick('lab')).generate(request, new AbortController().signal).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, SLOW_MS * 3));
    expect(await breaker.health(['lab'])).toEqual({ lab: 'up' });
    expect(held.calls[0].signal.aborted).toBe(false);
    // Another worker's call on the same backend goes slow too: two bad in a row open it.
    await breaker.record('lab', 'slow');
    const started = Date.now();
    expect(await first).toBeInstanceOf(TransientModelError);
    expect(Date.now() - started).toBeLessThanOrEqual(SLOW_WATCH_MS + 500);
  });

  it('a slow call that answers in the end completes, and counts once (bad), not again as an answer', async () => {
    const held = heldModel();
    const { router, breaker } = routerWith({ models: { lab: held.model }, failures: 2 });
    const call = (await router.pick('lab')).generate(request, new AbortController().signal);
    await new Promise((r) => setTimeout(r, SLOW_MS * 3));
    held.calls[0].answer();
    expect(await call).toBe(image);
    // Had the answer counted as good, this bad one would not be the second in a row.
    await breaker.record('lab', 'transient');
    expect(await breaker.health(['lab'])).toEqual({ lab: 'down' });
  });
});
