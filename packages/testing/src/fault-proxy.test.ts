import { shapeAnswerChunk, type FaultMode } from './fault-proxy';

const bytes = (...values: number[]) => Buffer.from(values);

describe('shapeAnswerChunk', () => {
  const cases: Array<[string, FaultMode, Buffer, number, { data: number[]; end: boolean }]> = [
    ['pass leaves bytes alone', { kind: 'pass' }, bytes(1, 2, 3), 10, { data: [1, 2, 3], end: false }],
    ['truncate before the limit passes the chunk', { kind: 'truncate', afterBytes: 10 }, bytes(1, 2, 3), 0, { data: [1, 2, 3], end: false }],
    ['truncate exactly at the limit ends after it', { kind: 'truncate', afterBytes: 3 }, bytes(1, 2, 3), 0, { data: [1, 2, 3], end: true }],
    ['truncate across the limit keeps the head', { kind: 'truncate', afterBytes: 5 }, bytes(1, 2, 3), 3, { data: [1, 2], end: true }],
    ['truncate past the limit sends nothing', { kind: 'truncate', afterBytes: 2 }, bytes(1, 2, 3), 4, { data: [], end: true }],
    [
      'corrupt flips from afterBytes, every everyBytes',
      { kind: 'corrupt', afterBytes: 1, everyBytes: 2 },
      bytes(0, 0, 0, 0, 0),
      0,
      { data: [0, 255, 0, 255, 0], end: false },
    ],
    ['corrupt counts bytes sent before', { kind: 'corrupt', afterBytes: 4, everyBytes: 3 }, bytes(0, 0, 0, 0), 3, { data: [0, 255, 0, 0], end: false }],
    ['mute drops the answer and keeps the connection', { kind: 'mute' }, bytes(1, 2, 3), 0, { data: [], end: false }],
    ['corrupt before afterBytes changes nothing', { kind: 'corrupt', afterBytes: 100, everyBytes: 1 }, bytes(7, 7), 0, { data: [7, 7], end: false }],
  ];
  it.each(cases)('%s', (_name, mode, chunk, sentBefore, expected) => {
    const shaped = shapeAnswerChunk(mode, chunk, sentBefore);
    expect({ data: [...shaped.data], end: shaped.end }).toEqual(expected);
  });

  it("does not change the caller's buffer when corrupting", () => {
    const chunk = bytes(0, 0);
    shapeAnswerChunk({ kind: 'corrupt', afterBytes: 0, everyBytes: 1 }, chunk, 0);
    expect([...chunk]).toEqual([0, 0]);
  });
});
