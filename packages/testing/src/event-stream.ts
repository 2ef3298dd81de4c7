/** Reading a server-sent event stream (a job's `/events`) with fetch, for tests and the bench. */

export interface SseEvent {
  id?: string;
  event?: string;
  // biome-ignore lint/suspicious/noExplicitAny: an event's parsed JSON data, read field by field by the stream tests' assertions
  data?: any;
  comment?: string;
}

/** One frame of an event stream: `field: value` lines; a line starting with ':' is a comment. */
export function parseSseFrame(frame: string): SseEvent {
  const event: SseEvent = {};
  for (const line of frame.split('\n')) {
    if (line.startsWith(':')) event.comment = line.slice(1).trim();
    const colon = line.indexOf(':');
    const [field, value] = [line.slice(0, colon), line.slice(colon + 1).replace(/^ /, '')];
    if (field === 'data') event.data = JSON.parse(value);
    else if (field === 'id' || field === 'event') event[field] = value;
  }
  return event;
}

export interface OpenedEventStream {
  response: Response;
  /** Frames as they arrive. */
  events: SseEvent[];
  /** Resolves when the server ends the stream (or the client aborts it). */
  ended: Promise<void>;
  abort(): void;
}

/** Opens a stream and reads it in the background; aborted after `timeoutMs` at the latest. */
export async function openEventStream(url: string, headers: Record<string, string> = {}, timeoutMs = 20_000): Promise<OpenedEventStream> {
  const controller = new AbortController();
  const timeout = setTimeout(() => controller.abort(), timeoutMs);
  const response = await fetch(url, { headers, signal: controller.signal });
  const events: SseEvent[] = [];
  const read = async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        events.push(parseSseFrame(buffer.slice(0, end)));
        buffer = buffer.slice(end + 2);
      }
    }
  };
  const ended = read()
    .catch((error: Error) => {
      if (error.name !== 'AbortError') throw error;
    })
    .finally(() => clearTimeout(timeout));
  return { response, events, ended, abort: () => controller.abort() };
}

/** The first frame named `event` (a job stream's first `status`), then the stream is closed. */
export async function firstSseEvent(url: string, headers: Record<string, string>, event = 'status'): Promise<SseEvent | undefined> {
  const stream = await openEventStream(url, headers);
  const found = () => stream.events.find((e) => e.event === event);
  try {
    while (!found()) {
      const settled = await Promise.race([stream.ended.then(() => true), new Promise<false>((r) => setTimeout(() => r(false), 10))]);
      if (settled) break;
    }
    return found();
  } finally {
    stream.abort();
    await stream.ended;
  }
}
