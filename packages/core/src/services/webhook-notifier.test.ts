import type { JobRecord } from '../ports/job-store';
import type { WebhookDeliveryStore } from '../ports/webhooks';
import { createWebhookNotifier } from './webhook-notifier';

/** The delivery log's claim rules in memory: a row is handed out once. */
function memoryDeliveries() {
  const rows = new Map<string, { jobId: string; url: string; status: string; event?: string; body?: string }>();
  const store: Pick<WebhookDeliveryStore, 'subscribe' | 'claim' | 'pendingIds'> = {
    async subscribe({ id, jobId, url }) {
      if (!rows.has(id)) rows.set(id, { jobId, url, status: 'waiting' });
    },
    async claim({ jobId, event, body, creator }) {
      const ids: string[] = [];
      if (creator && !rows.has(creator.id)) {
        rows.set(creator.id, { jobId, url: creator.url, status: 'pending', event, body });
        ids.push(creator.id);
      }
      for (const [id, row] of rows) {
        if (row.jobId === jobId && row.status === 'waiting') {
          Object.assign(row, { status: 'pending', event, body });
          ids.push(id);
        }
      }
      return ids;
    },
    async pendingIds() {
      return [...rows].filter(([, r]) => r.status === 'pending').map(([id]) => id);
    },
  };
  return { rows, store };
}

function setup() {
  const jobs = new Map<string, JobRecord>();
  const deliveries = memoryDeliveries();
  const queued: string[] = [];
  const errors: string[] = [];
  const notifier = createWebhookNotifier({
    jobStore: {
      get: async (id) => jobs.get(id) ?? null,
      update: async (id, patch) => {
        const record = jobs.get(id);
        if (record) jobs.set(id, { ...record, ...patch });
        return !!record;
      },
    },
    deliveries: deliveries.store,
    queue: { enqueue: async ({ jobId }) => void queued.push(jobId) },
    now: () => new Date('2026-11-23T07:00:00Z'),
    onError: (message) => errors.push(message),
  });
  const job = (patch: Partial<JobRecord> = {}): JobRecord => {
    // Later calls change the stored record, as the worker's updates would (a joiner's flag stays).
    const record: JobRecord = {
      jobId: 'job-1',
      accountId: 'acct',
      status: 'processing',
      createdAt: '2026-11-23T07:00:00.000Z',
      request: { prompt: 'p', strength: 1, width: 1024, height: 1024, format: 'webp' },
      ...jobs.get(patch.jobId ?? 'job-1'),
      ...patch,
    };
    jobs.set(record.jobId, record);
    return record;
  };
  const urlsOf = (ids: string[]) => ids.map((id) => deliveries.rows.get(id)!.url);
  return { notifier, job, jobs, deliveries, queued, errors, urlsOf };
}

describe('webhook notifier', () => {
  it.each([
    ['a job nobody asked about', undefined, [], []],
    ['the creator only', 'https://a.example/hook', [], ['https://a.example/hook']],
    [
      'the creator and two joiners',
      'https://a.example/hook',
      ['https://b.example/hook', 'https://c.example/hook'],
      ['https://a.example/hook', 'https://b.example/hook', 'https://c.example/hook'],
    ],
    ['joiners of a job whose creator asked for none', undefined, ['https://b.example/hook'], ['https://b.example/hook']],
    [
      "a joiner with the creator's URL, and one that joined twice",
      'https://a.example/hook',
      ['https://a.example/hook', 'https://b.example/hook', 'https://b.example/hook'],
      ['https://a.example/hook', 'https://b.example/hook'],
    ],
  ])('queues one delivery per URL when the job finishes: %s', async (_name, creatorUrl, joiners, expected) => {
    const t = setup();
    const running = t.job({ webhookUrl: creatorUrl });
    for (const url of joiners) await t.notifier.subscribe(running, url);
    expect(t.queued).toEqual([]);
    t.job({ webhookUrl: creatorUrl, status: 'completed', imageUrl: 'https://x/i.webp', imageId: 'img', completedAt: '2026-11-23T07:00:09.000Z' });
    await t.notifier.jobFinished('job-1');
    expect(t.urlsOf(t.queued)).toEqual(expected);
    // The body is the job as polled, fixed at the finish.
    for (const id of t.queued)
      expect(JSON.parse(t.deliveries.rows.get(id)!.body!)).toEqual({
        jobId: 'job-1',
        status: 'completed',
        createdAt: '2026-11-23T07:00:00.000Z',
        imageUrl: 'https://x/i.webp',
        imageId: 'img',
        completedAt: '2026-11-23T07:00:09.000Z',
      });
    // A second report of the same finish (another process, a retried job) adds nothing.
    await t.notifier.jobFinished('job-1');
    expect(t.queued).toHaveLength(expected.length);
  });

  it('a caller that subscribes after the job finished is told at once', async () => {
    const t = setup();
    const running = t.job({ webhookUrl: 'https://a.example/hook' });
    t.job({ webhookUrl: 'https://a.example/hook', status: 'failed', error: 'Image generation failed: boom', completedAt: '2026-11-23T07:00:09.000Z' });
    await t.notifier.jobFinished('job-1');
    await t.notifier.subscribe(running, 'https://late.example/hook');
    expect(t.urlsOf(t.queued)).toEqual(['https://a.example/hook', 'https://late.example/hook']);
    expect(t.deliveries.rows.get(t.queued[1])).toMatchObject({ event: 'failed', status: 'pending' });
  });

  it('does nothing for a job still running or gone, and never throws', async () => {
    const t = setup();
    t.job({ webhookUrl: 'https://a.example/hook' });
    await t.notifier.jobFinished('job-1');
    await t.notifier.jobFinished('no-such-job');
    expect(t.queued).toEqual([]);
    t.job({ webhookUrl: 'https://a.example/hook', status: 'completed' });
    t.deliveries.store.claim = async () => Promise.reject(new Error('database down'));
    await expect(t.notifier.jobFinished('job-1')).resolves.toBeUndefined();
    expect(t.errors).toEqual(['could not queue webhook deliveries']);
  });

  it('re-queues pending deliveries', async () => {
    const t = setup();
    t.job({ webhookUrl: 'https://a.example/hook', status: 'completed' });
    await t.notifier.jobFinished('job-1');
    expect(await t.notifier.resumePending()).toBe(1);
    expect(t.queued).toEqual([t.queued[0], t.queued[0]]);
  });
});
