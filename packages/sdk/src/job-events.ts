import { abortReason, sleep } from './abort';
import { ConnectionError, PromptPixError } from './errors';
import { createEventStreamParser, type ServerSentEvent } from './event-stream';
import type { BackendProgress, JobProgress } from './types';

export interface JobEventsOptions {
  /** Aborting ends the iteration: the pending `next()` rejects with the signal's reason and the connection closes. */
  signal?: AbortSignal;
  /** The `id` of the last event already seen, to resume after it; naming a final state (`completed`, `failed`) yields nothing. */
  lastEventId?: string;
  /** Called with each `progress` event while the job is processing (backends that report it: ComfyUI, A1111/Forge, Replicate). */
  onProgress?: (progress: BackendProgress) => void;
}

/** Opens GET /api/v1/job/:jobId/events, sending `Last-Event-ID` when given; error statuses reject as typed errors. */
export type EventStreamOpener = (lastEventId: string | undefined, signal: AbortSignal | undefined) => Promise<Response>;

/** Before resuming a stream the server ended early (its 10-minute cap, a proxy timeout). */
const RESUME_DELAY_MS = 1000;

const isFinal = (job: JobProgress) => job.status === 'completed' || job.status === 'failed';

/**
 * The job's states from its event stream, ending after `completed` or `failed`. A stream that
 * ends before then is resumed with `Last-Event-ID`, as EventSource would, without repeating the
 * state last seen; a job gone meanwhile rejects with NotFoundError, a dropped connection with
 * ConnectionError.
 */
export async function* followJobEvents(open: EventStreamOpener, options: JobEventsOptions = {}): AsyncGenerator<JobProgress, void, undefined> {
  const { signal } = options;
  let lastEventId = options.lastEventId;
  for (;;) {
    const response = await open(lastEventId, signal);
    // The server's answer to a Last-Event-ID naming the final state: nothing more will come.
    if (response.status === 204) return;
    for await (const event of eventsOf(response, signal)) {
      if (event.event === 'progress') {
        options.onProgress?.(JSON.parse(event.data) as BackendProgress);
        continue;
      }
      if (event.event !== 'status' || (event.id !== undefined && event.id === lastEventId)) continue;
      lastEventId = event.id;
      const job = JSON.parse(event.data) as JobProgress;
      yield job;
      if (isFinal(job)) return;
    }
    await sleep(RESUME_DELAY_MS, signal);
  }
}

/** The events of one response; leaving the loop early closes the connection. */
async function* eventsOf(response: Response, signal: AbortSignal | undefined): AsyncGenerator<ServerSentEvent, void, undefined> {
  const type = response.headers.get('content-type') ?? '';
  if (!type.startsWith('text/event-stream') || !response.body) {
    await response.body?.cancel().catch(() => undefined);
    throw new PromptPixError(`Expected an event stream, got HTTP ${response.status} ${type || 'without a content type'}`, {
      status: response.status,
      body: null,
    });
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const parser = createEventStreamParser();
  try {
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (error) {
        if (signal?.aborted) throw abortReason(signal);
        throw new ConnectionError('The job event stream broke off', error);
      }
      if (chunk.done) return;
      yield* parser.push(decoder.decode(chunk.value, { stream: true }));
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
