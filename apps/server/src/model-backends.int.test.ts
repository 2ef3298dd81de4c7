/**
 * The real-backend adapters through the whole service, on both shapes: a job goes gateway → queue
 * → worker → the backend's protocol fake → storage, and the backend's progress reaches the job's
 * event stream as `progress` events, written to the job store at most twice a second.
 */
import { join } from 'node:path';
import sharp from 'sharp';
import type { JobPatch } from '@promptpix/core';
import {
  fakeImageColour,
  startFakeA1111,
  startFakeComfyUI,
  startFakeReplicate,
  type FakeA1111Behaviour,
  type FakeComfyUIServer,
  type FakeProviderServer,
  type FakeReplicateBehaviour,
} from '@promptpix/testing/fake-providers';
import { SHAPES, startTestService, type TestAccount, type TestService } from './testing';

const SAMPLE_WORKFLOW = join(__dirname, '../../../docs/backends/comfyui-workflow.json');
const REPLICATE_TOKEN = 'r8_e2e_token_0123456789';
/** The worker's throttle: one progress write per 500 ms (PROGRESS_WRITE_MS); a little slack for clock reads. */
const MIN_WRITE_GAP_MS = 450;

interface SseEvent {
  id?: string;
  event?: string;
  data?: any;
}

/** Reads an event stream to its end (the server ends it after `completed` or `failed`). */
async function readStream(url: string, key: string): Promise<SseEvent[]> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${key}` }, signal: AbortSignal.timeout(30_000) });
  expect(response.headers.get('content-type')).toBe('text/event-stream');
  const events: SseEvent[] = [];
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const event: SseEvent = {};
      for (const line of buffer.slice(0, end).split('\n')) {
        const colon = line.indexOf(':');
        const [field, value] = [line.slice(0, colon), line.slice(colon + 1).replace(/^ /, '')];
        if (field === 'data') event.data = JSON.parse(value);
        else if (field === 'id' || field === 'event') event[field] = value;
      }
      if (event.event) events.push(event);
      buffer = buffer.slice(end + 2);
    }
  }
  return events;
}

let comfy: FakeComfyUIServer;
let a1111: FakeProviderServer<FakeA1111Behaviour>;
let replicate: FakeProviderServer<FakeReplicateBehaviour>;
beforeAll(async () => {
  [comfy, a1111, replicate] = await Promise.all([startFakeComfyUI(), startFakeA1111(), startFakeReplicate({ token: REPLICATE_TOKEN })]);
  // Each backend takes a second or two and reports as it goes: far more often than twice a second.
  comfy.setBehaviour({ steps: 40, stepMs: 30 });
  a1111.setBehaviour({ stepMs: 40 });
  const bar = (n: number) =>
    `${String(Math.round((n / 20) * 100)).padStart(3)}%|${'█'.repeat(n / 2).padEnd(10)}| ${n}/20 [00:0${Math.floor(n / 10)}<00:01, 9.9it/s]`;
  replicate.setBehaviour({
    pollsUntilDone: 12,
    logLines: ['Using seed: 1', ...Array.from({ length: 11 }, (_, i) => bar(Math.min(2 * (i + 1), 20)))],
  });
});
afterAll(() => Promise.all([comfy.stop(), a1111.stop(), replicate.stop()]));

const backends = [
  ['comfyui', () => ({ MODEL_PROVIDER: 'comfyui', COMFYUI_BASE_URL: comfy.url, COMFYUI_WORKFLOW: SAMPLE_WORKFLOW, COMFYUI_POLL_INTERVAL_MS: '100' })],
  ['a1111', () => ({ MODEL_PROVIDER: 'a1111', A1111_BASE_URL: a1111.url, A1111_STEPS: '40', A1111_PROGRESS_INTERVAL_MS: '100' })],
  [
    'replicate',
    () => ({
      MODEL_PROVIDER: 'replicate',
      REPLICATE_BASE_URL: replicate.url,
      REPLICATE_API_TOKEN: REPLICATE_TOKEN,
      REPLICATE_MODEL_VERSION: 'fake/model:0123abcd',
      REPLICATE_POLL_INTERVAL_MS: '100',
    }),
  ],
] as const;

describe.each(SHAPES)('model backends through the worker (%s)', (shape) => {
  describe.each(backends)('%s', (backend, env) => {
    let service: TestService;
    let account: TestAccount;
    /** When the worker wrote progress onto a job, by job id. */
    const progressWrites = new Map<string, number[]>();

    beforeAll(async () => {
      service = await startTestService(shape, env(), {
        instrument(infra) {
          const update = infra.jobStore.update.bind(infra.jobStore);
          infra.jobStore.update = (jobId: string, patch: JobPatch, condition) => {
            if (patch.progress) progressWrites.set(jobId, [...(progressWrites.get(jobId) ?? []), Date.now()]);
            return update(jobId, patch, condition);
          };
        },
      });
      account = await service.createAccount();
    });
    afterAll(() => service.stop());

    it('makes the image, and its progress reaches the event stream as progress events', async () => {
      const prompt = `a harbour at dusk, drawn by ${backend} on the ${shape} shape`;
      const created = await fetch(`${service.baseUrl}/api/v1/generate`, {
        method: 'POST',
        headers: { authorization: `Bearer ${account.secretKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ prompt, width: 512, height: 512, format: 'png' }),
      });
      expect(created.status).toBe(202);
      const { jobId } = await created.json();
      const events = await readStream(`${service.baseUrl}/api/v1/job/${jobId}/events`, account.secretKey);

      const statuses = events.filter((e) => e.event === 'status').map((e) => e.data.status);
      expect(statuses.at(-1)).toBe('completed');
      const progress = events.filter((e) => e.event === 'progress');
      expect(progress.length).toBeGreaterThan(0);
      for (const event of progress) {
        expect(event.id).toBeUndefined();
        expect(event.data).toMatchObject({ jobId, message: expect.any(String) });
        if (event.data.fraction !== undefined) expect(event.data.fraction).toBeGreaterThanOrEqual(0);
        if (event.data.fraction !== undefined) expect(event.data.fraction).toBeLessThanOrEqual(1);
      }
      expect(progress.some((e) => typeof e.data.fraction === 'number' && e.data.fraction > 0)).toBe(true);
      // Progress comes while processing: after that status, before completed.
      const order = events.map((e) => (e.event === 'progress' ? 'progress' : e.data.status));
      expect(order.indexOf('processing')).toBeLessThan(order.indexOf('progress'));
      expect(order.lastIndexOf('progress')).toBeLessThan(order.indexOf('completed'));

      // The rate limit holds: never two writes within the interval, however often the backend reports
      // (a count bound would depend on how slow this machine runs the fake's sampling).
      const writes = progressWrites.get(jobId) ?? [];
      expect(writes.length).toBeGreaterThan(0);
      for (let i = 1; i < writes.length; i++) expect(writes[i] - writes[i - 1]).toBeGreaterThanOrEqual(MIN_WRITE_GAP_MS);

      // The image is the backend's, for this prompt.
      const job = events.at(-1)!.data;
      const file = await fetch(job.imageUrl);
      expect(file.status).toBe(200);
      const data = Buffer.from(await file.arrayBuffer());
      expect(await sharp(data).metadata()).toMatchObject({ width: 512, height: 512, format: 'png' });
      const px = await sharp(data).raw().toBuffer();
      const colour = fakeImageColour(prompt);
      expect([px[0], px[1], px[2]]).toEqual([colour.r, colour.g, colour.b]);
    });
  });
});
