import { followJobEvents } from './job-events';
import type { JobProgress } from './types';

const job = (status: JobProgress['status'], extra: Partial<JobProgress> = {}): JobProgress => ({
  jobId: 'j-1',
  status,
  createdAt: '2026-11-23T07:00:00.000Z',
  ...extra,
});
const frame = (id: string, data: JobProgress) => `id: ${id}\nevent: status\ndata: ${JSON.stringify(data)}\n\n`;
const stream = (...frames: string[]) => new Response(frames.join(''), { headers: { 'content-type': 'text/event-stream' } });

async function collect(iterable: AsyncIterable<JobProgress>): Promise<JobProgress[]> {
  const seen: JobProgress[] = [];
  for await (const item of iterable) seen.push(item);
  return seen;
}

/** How the stream is resumed when the server ends it before a final state; the server side is canned responses. */
describe('followJobEvents', () => {
  it('resumes a stream ended early with Last-Event-ID, without repeating the state last seen', async () => {
    const asked: Array<string | undefined> = [];
    const answers = [
      stream(frame('queued-1', job('queued', { position: 1 })), ': keep-alive\n\n'),
      stream(frame('queued-1', job('queued', { position: 1 })), frame('processing', job('processing')), frame('completed', job('completed'))),
    ];
    const seen = await collect(
      followJobEvents(async (lastEventId) => {
        asked.push(lastEventId);
        return answers.shift()!;
      }),
    );
    expect(asked).toEqual([undefined, 'queued-1']);
    expect(seen.map((j) => j.status)).toEqual(['queued', 'processing', 'completed']);
  });

  it('ends at a 204 (the final state was already seen) and stops reading after the final event', async () => {
    expect(await collect(followJobEvents(async () => new Response(null, { status: 204 }), { lastEventId: 'completed' }))).toEqual([]);
    const seen = await collect(followJobEvents(async () => stream(frame('failed', job('failed', { error: 'cancelled' })), frame('x', job('queued')))));
    expect(seen).toEqual([job('failed', { error: 'cancelled' })]);
  });

  it('passes progress events to onProgress without yielding them or moving Last-Event-ID', async () => {
    const progress = (fraction: number) => `event: progress\ndata: ${JSON.stringify({ jobId: 'j-1', fraction, message: `step ${fraction * 4}/4` })}\n\n`;
    const asked: Array<string | undefined> = [];
    const answers = [stream(frame('processing', job('processing')), progress(0.25)), stream(progress(0.5), frame('completed', job('completed')))];
    const reported: unknown[] = [];
    const seen = await collect(
      followJobEvents(
        async (lastEventId) => {
          asked.push(lastEventId);
          return answers.shift()!;
        },
        { onProgress: (p) => reported.push(p) },
      ),
    );
    expect(seen.map((j) => j.status)).toEqual(['processing', 'completed']);
    expect(reported).toEqual([
      { jobId: 'j-1', fraction: 0.25, message: 'step 1/4' },
      { jobId: 'j-1', fraction: 0.5, message: 'step 2/4' },
    ]);
    expect(asked).toEqual([undefined, 'processing']);
  });

  it('refuses an answer that is not an event stream (a proxy page)', async () => {
    const answer = new Response('<html>', { headers: { 'content-type': 'text/html' } });
    await expect(collect(followJobEvents(async () => answer))).rejects.toMatchObject({ name: 'PromptPixError', status: 200 });
  });
});
