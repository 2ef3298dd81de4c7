import { createEventStreamParser, type ServerSentEvent } from './event-stream';

/** Everything the parser dispatches for `chunks` fed in order. */
const parse = (...chunks: string[]): ServerSentEvent[] => {
  const parser = createEventStreamParser();
  return chunks.flatMap((chunk) => parser.push(chunk));
};

describe('createEventStreamParser', () => {
  it('reads the frames the gateway writes, comments and all', () => {
    const stream =
      'id: queued-1\nevent: status\ndata: {"status":"queued","position":1}\n\n: keep-alive\n\nid: completed\nevent: status\ndata: {"status":"completed"}\n\n';
    expect(parse(stream)).toEqual([
      { id: 'queued-1', event: 'status', data: '{"status":"queued","position":1}' },
      { id: 'completed', event: 'status', data: '{"status":"completed"}' },
    ]);
  });

  it('gives the same events however the stream is cut into chunks', () => {
    const stream = 'id: a\r\nevent: status\r\ndata: one\r\n\r\nid: b\rdata: two\r\rdata: three\n\n';
    const whole = parse(stream);
    expect(whole).toEqual([
      { id: 'a', event: 'status', data: 'one' },
      { id: 'b', event: 'message', data: 'two' },
      { id: 'b', event: 'message', data: 'three' },
    ]);
    for (let cut = 1; cut < stream.length; cut++) expect(parse(stream.slice(0, cut), stream.slice(cut))).toEqual(whole);
    expect(parse(...stream.split(''))).toEqual(whole);
  });

  it.each([
    ['joins data lines with a newline', 'data: a\ndata: b\n\n', [{ id: undefined, event: 'message', data: 'a\nb' }]],
    ['strips one space after the colon only', 'data:  two spaces\ndata:none\n\n', [{ id: undefined, event: 'message', data: ' two spaces\nnone' }]],
    ['dispatches nothing for an event without data', 'id: x\nevent: status\n\ndata: y\n\n', [{ id: 'x', event: 'message', data: 'y' }]],
    ['ignores unknown fields and retry', 'retry: 5000\nfoo: bar\ndata: z\n\n', [{ id: undefined, event: 'message', data: 'z' }]],
    ['drops an event the stream ends before finishing', 'data: whole\n\ndata: cut off', [{ id: undefined, event: 'message', data: 'whole' }]],
    ['reads a field name without a colon as an empty value', 'data\n\n', [{ id: undefined, event: 'message', data: '' }]],
  ])('%s', (_name, stream, expected) => {
    expect(parse(stream)).toEqual(expected);
  });
});
