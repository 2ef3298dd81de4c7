import { ConnectionError, GenerationFailedError, NotFoundError, RateLimitError, ServerError, TimeoutError } from './errors';
import { waitForCompletion, type JobReader } from './wait-for-image';
import type { JobView } from './types';

const createdAt = '2026-11-23T12:00:00.000Z';
const queued: JobView = { jobId: 'j', status: 'queued', createdAt };
const processing: JobView = { jobId: 'j', status: 'processing', createdAt };
const completed: JobView = { jobId: 'j', status: 'completed', createdAt, completedAt: createdAt, imageId: 'i', imageUrl: 'https://h/images/x.webp' };
const failed: JobView = { jobId: 'j', status: 'failed', createdAt, completedAt: createdAt, error: 'The model gave up' };

type Outcome = JobView | Error | 'hang';

/** A job reader answering from a script, recording when (fake time since start) each read happened. */
function scripted(outcomes: Outcome[]) {
  const start = Date.now();
  const readsAt: number[] = [];
  const read: JobReader = (_jobId, signal) => {
    readsAt.push(Date.now() - start);
    const next = outcomes.shift() ?? processing;
    if (next === 'hang') return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
    return next instanceof Error ? Promise.reject(next) : Promise.resolve(next);
  };
  return { read, readsAt };
}

/** Runs `promise` to settlement by advancing fake time; returns its outcome. */
async function settle<T>(promise: Promise<T>, ms = 600_000): Promise<{ value?: T; error?: unknown }> {
  const outcome = promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  await jest.advanceTimersByTimeAsync(ms);
  return outcome;
}

beforeEach(() => jest.useFakeTimers());
afterEach(() => {
  expect(jest.getTimerCount()).toBe(0);
  jest.useRealTimers();
});

describe('waitForCompletion', () => {
  it('polls after 1 s, then up to 2 s apart, and resolves with the completed job', async () => {
    const { read, readsAt } = scripted([queued, processing, processing, processing, processing, completed]);
    const updates: string[] = [];
    const { value } = await settle(waitForCompletion(read, 'j', { onUpdate: (job) => updates.push(job.status) }));
    expect(value).toEqual(completed);
    expect(readsAt).toEqual([1000, 2250, 3813, 5766, 7766, 9766]);
    expect(updates).toEqual(['queued', 'processing', 'processing', 'processing', 'processing', 'completed']);
  });

  it('a failed job throws GenerationFailedError carrying the job', async () => {
    const { read } = scripted([processing, failed]);
    const { error } = await settle(waitForCompletion(read, 'j'));
    expect(error).toBeInstanceOf(GenerationFailedError);
    expect((error as GenerationFailedError).job).toEqual(failed);
    expect((error as Error).message).toBe('The model gave up');
  });

  it.each([
    ['429 retryAfterMs', new RateLimitError('Rate limit exceeded', { status: 429, body: null, retryAfterMs: 7000, limit: 30, remaining: 0 }), [1000, 8000]],
    ['503 Retry-After', new ServerError('Service unavailable', { status: 503, body: null, retryAfter: 5 }), [1000, 6000]],
    ['500 backoff', new ServerError('Internal server error', { status: 500, body: null }), [1000, 1500]],
    ['network error backoff', new ConnectionError('down', new TypeError('fetch failed')), [1000, 1500]],
  ])('retries after a %s', async (_label, failure, expectedReads) => {
    const { read, readsAt } = scripted([failure, completed]);
    const { value } = await settle(waitForCompletion(read, 'j'));
    expect(value).toEqual(completed);
    expect(readsAt).toEqual(expectedReads);
  });

  it('backs off further on consecutive failures and resets after a good poll', async () => {
    const down = () => new ConnectionError('down', new TypeError('fetch failed'));
    const { read, readsAt } = scripted([down(), down(), down(), processing, down(), completed]);
    await settle(waitForCompletion(read, 'j'));
    // 1000, +500, +1000, +2000 (answers), +1250 (next poll), +500 (first failure again).
    expect(readsAt).toEqual([1000, 1500, 2500, 4500, 5750, 6250]);
  });

  it('a 404 (the job is gone) is thrown at once', async () => {
    const gone = new NotFoundError('Job not found', { status: 404, body: { error: 'Job not found' } });
    const { read, readsAt } = scripted([processing, gone]);
    const { error } = await settle(waitForCompletion(read, 'j'));
    expect(error).toBe(gone);
    expect(readsAt).toHaveLength(2);
  });

  it('an abort while waiting rejects at once with the reason and reads no more', async () => {
    const { read, readsAt } = scripted([processing, processing]);
    const controller = new AbortController();
    const outcome = waitForCompletion(read, 'j', { signal: controller.signal }).catch((e: unknown) => e);
    await jest.advanceTimersByTimeAsync(1500);
    controller.abort();
    const error = await outcome;
    expect(error).toBeInstanceOf(DOMException);
    expect((error as DOMException).name).toBe('AbortError');
    await jest.advanceTimersByTimeAsync(10_000);
    expect(readsAt).toEqual([1000]);
  });

  it('an abort during a read rejects with the given reason', async () => {
    const { read } = scripted(['hang']);
    const controller = new AbortController();
    const outcome = waitForCompletion(read, 'j', { signal: controller.signal }).catch((e: unknown) => e);
    await jest.advanceTimersByTimeAsync(1200);
    const reason = new Error('user left the page');
    controller.abort(reason);
    expect(await outcome).toBe(reason);
  });

  it('an already aborted signal rejects without reading', async () => {
    const { read, readsAt } = scripted([completed]);
    const { error } = await settle(waitForCompletion(read, 'j', { signal: AbortSignal.abort() }));
    expect((error as DOMException).name).toBe('AbortError');
    expect(readsAt).toEqual([]);
  });

  it('runs out of time with TimeoutError carrying the last state seen', async () => {
    const { read, readsAt } = scripted([]);
    const { error } = await settle(waitForCompletion(read, 'j', { timeoutMs: 5000 }));
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ jobId: 'j', timeoutMs: 5000, lastJob: processing });
    expect(readsAt).toEqual([1000, 2250, 3813]);
  });

  it('a read that hangs past the deadline is cut off with TimeoutError', async () => {
    const { read } = scripted(['hang']);
    const { error } = await settle(waitForCompletion(read, 'j', { timeoutMs: 3000 }));
    expect(error).toMatchObject({ name: 'TimeoutError', lastJob: null });
  });

  it('timeoutMs Infinity waits as long as it takes', async () => {
    const { read } = scripted([...Array(400).fill(processing), completed]);
    const { value } = await settle(waitForCompletion(read, 'j', { timeoutMs: Infinity }), 1_000_000);
    expect(value).toEqual(completed);
  });
});
