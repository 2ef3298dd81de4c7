import { ErrorMessages } from '@promptpix/contracts';
import { SHAPES, startTestService, type TestAccount, type TestService } from '@promptpix/server/testing';
import { openEventStream as open, type SseEvent } from '@promptpix/testing';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(SHAPES)('GET /api/v1/job/:jobId/events (%s)', (shape) => {
  let service: TestService;
  let account: TestAccount;

  beforeAll(async () => {
    // One job at a time, each taking a second: later jobs wait in the queue.
    service = await startTestService(
      shape,
      { MODEL_LATENCY_MS: '1000', WORKER_CONCURRENCY: '1' },
      {
        model: (inner) => ({
          ...inner,
          generate: async (req, signal) => {
            if (req.prompt.includes('doomed')) throw new Error('the provider refused');
            return inner.generate(req, signal);
          },
        }),
      },
    );
    account = await service.createAccount();
  });
  afterAll(() => service.stop());

  const generate = async (prompt: string, key = account.secretKey): Promise<string> => {
    const response = await fetch(`${service.baseUrl}/api/v1/generate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt, width: 256, height: 256 }),
    });
    expect(response.status).toBe(202);
    return (await response.json()).jobId;
  };
  const eventsUrl = (jobId: string, query = '') => `${service.baseUrl}/api/v1/job/${encodeURIComponent(jobId)}/events${query}`;
  const stream = (jobId: string, key = account.secretKey) => open(eventsUrl(jobId), { authorization: `Bearer ${key}` });
  const poll = async (jobId: string) =>
    (await fetch(`${service.baseUrl}/api/v1/job/${jobId}`, { headers: { authorization: `Bearer ${account.secretKey}` } })).json();

  /** Every event is a `status` with an id, and no state is sent twice in a row. */
  const expectWellFormed = (events: SseEvent[]) => {
    for (const event of events) expect(event).toEqual({ id: expect.any(String), event: 'status', data: expect.any(Object) });
    for (let i = 1; i < events.length; i++) expect(events[i].data).not.toEqual(events[i - 1].data);
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
  };

  it('streams queued (with a shrinking position) → processing → completed, then ends', async () => {
    const [first, second, third] = [await generate('the first in line'), await generate('the second in line'), await generate('the third in line')];
    const watched = await stream(third);
    expect(watched.response.status).toBe(200);
    expect(watched.response.headers.get('content-type')).toBe('text/event-stream');
    expect(watched.response.headers.get('cache-control')).toBe('no-cache');
    expect(watched.response.headers.get('x-accel-buffering')).toBe('no');
    await watched.ended;

    const { events } = watched;
    expectWellFormed(events);
    const statuses = events.map((e) => e.data.status).filter((s, i, all) => s !== all[i - 1]);
    expect(statuses).toEqual(['queued', 'processing', 'completed']);
    const positions = events.filter((e) => e.data.status === 'queued').map((e) => e.data.position);
    expect(positions.length).toBeGreaterThanOrEqual(2);
    expect(positions[0]).toBeLessThanOrEqual(2);
    expect(positions.at(-1)).toBe(0);
    for (let i = 1; i < positions.length; i++) expect(positions[i]).toBeLessThan(positions[i - 1]);
    // Only a queued job carries a position; the last event is the job exactly as polled.
    expect(events.filter((e) => e.data.status !== 'queued').every((e) => !('position' in e.data))).toBe(true);
    expect(events.at(-1)!.data).toEqual(await poll(third));
    expect(events.at(-1)!.id).toBe('completed');
    expect((await poll(first)).status).toBe('completed');
    expect((await poll(second)).status).toBe('completed');
  });

  it('ends with failed, and its error, for a job that fails; a publishable key may come as ?key= (EventSource cannot set headers)', async () => {
    const jobId = await generate('a doomed picture');
    const watched = await open(eventsUrl(jobId, `?key=${encodeURIComponent(account.publishableKey)}`));
    expect(watched.response.status).toBe(200);
    await watched.ended;
    expectWellFormed(watched.events);
    expect(watched.events.at(-1)!.data).toEqual({
      jobId,
      status: 'failed',
      createdAt: expect.any(String),
      completedAt: expect.any(String),
      error: expect.stringContaining('the provider refused'),
    });
    expect(watched.events.map((e) => e.data.status)).not.toContain('completed');
  });

  it('answers a finished job with its final state at once; a reconnect that already has it gets 204', async () => {
    const jobId = await generate('another doomed picture');
    await service.waitForJob(jobId, account.secretKey);
    const watched = await stream(jobId);
    await watched.ended;
    expect(watched.events).toEqual([{ id: 'failed', event: 'status', data: await poll(jobId) }]);
    const again = await fetch(eventsUrl(jobId), { headers: { authorization: `Bearer ${account.secretKey}`, 'last-event-id': 'failed' } });
    expect(again.status).toBe(204);
  });

  it.each(['00000000-0000-4000-8000-000000000000', 'not-a-job', 'x'.repeat(300)])('404 Job not found (JSON, no stream) for %s', async (jobId) => {
    const response = await fetch(eventsUrl(jobId), { headers: { authorization: `Bearer ${account.secretKey}` } });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({ error: ErrorMessages.jobNotFound });
  });

  it("404 for another account's job, with either of its keys, and 401 without a key", async () => {
    const jobId = await generate('not yours');
    const other = await service.createAccount();
    for (const key of [other.secretKey, other.publishableKey]) {
      const response = await fetch(eventsUrl(jobId, `?key=${encodeURIComponent(key)}`));
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ error: ErrorMessages.jobNotFound });
    }
    expect((await fetch(eventsUrl(jobId))).status).toBe(401);
  });

  it('ends when the job expires, and stops reading the job once the client leaves', async () => {
    // Queued records that no queue holds, so nothing else reads them.
    const template = (await service.infra.jobStore.get(await generate('a template record')))!;
    const record = { accountId: template.accountId, request: template.request, status: 'queued' as const, createdAt: new Date().toISOString() };
    await service.infra.jobStore.create({ ...record, jobId: `expiring-${shape}` }, 1);
    const expiring = await stream(`expiring-${shape}`);
    await expiring.ended;
    expect(expiring.events.map((e) => e.data.status)).toEqual(['queued']);

    await service.infra.jobStore.create({ ...record, jobId: `abandoned-${shape}`, status: 'queued' }, 60);
    const reads = jest.spyOn(service.infra.jobStore, 'get');
    try {
      const abandoned = await stream(`abandoned-${shape}`);
      await sleep(1100);
      const whileOpen = reads.mock.calls.filter(([id]) => id === `abandoned-${shape}`).length;
      expect(whileOpen).toBeGreaterThanOrEqual(2);
      abandoned.abort();
      await abandoned.ended;
      await sleep(100);
      reads.mockClear();
      await sleep(1100);
      expect(reads.mock.calls.filter(([id]) => id === `abandoned-${shape}`)).toHaveLength(0);
    } finally {
      reads.mockRestore();
    }
    await service.waitForJob(template.jobId, account.secretKey);
  });
});
