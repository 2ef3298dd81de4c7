/** One event of a `text/event-stream`. */
export interface ServerSentEvent {
  /** The stream's last event id when the event was dispatched (an event without `id:` keeps the previous one). */
  id: string | undefined;
  /** `message` when the event names none. */
  event: string;
  data: string;
}

/**
 * Splits a `text/event-stream` into events by the HTML standard's rules ("Interpreting an event
 * stream"): lines end in CRLF, LF or CR; a line starting with `:` is a comment; a blank line
 * dispatches the event gathered so far, unless it has no data. Feed it decoded text in chunks
 * of any size; an event left unfinished when the stream ends is dropped, as the standard says.
 */
export function createEventStreamParser() {
  let pending = '';
  let lastEventId: string | undefined;
  let type = '';
  let data: string[] = [];

  function line(text: string, events: ServerSentEvent[]) {
    if (text === '') {
      if (data.length > 0) events.push({ id: lastEventId, event: type || 'message', data: data.join('\n') });
      type = '';
      data = [];
      return;
    }
    if (text.startsWith(':')) return;
    const colon = text.indexOf(':');
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'event') type = value;
    else if (field === 'id' && !value.includes('\0')) lastEventId = value;
  }

  return {
    /** The events completed by this chunk. */
    push(chunk: string): ServerSentEvent[] {
      const events: ServerSentEvent[] = [];
      pending += chunk;
      let start = 0;
      for (let i = 0; i < pending.length; i++) {
        const c = pending[i];
        if (c !== '\n' && c !== '\r') continue;
        // A CR that ends the chunk may be the first half of a CRLF split across chunks.
        if (c === '\r' && i === pending.length - 1) break;
        line(pending.slice(start, i), events);
        if (c === '\r' && pending[i + 1] === '\n') i++;
        start = i + 1;
      }
      pending = pending.slice(start);
      return events;
    },
  };
}
