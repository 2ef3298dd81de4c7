import { padBatch, poolTokens, truncateIds } from './token-batch';

describe('truncateIds', () => {
  it.each([
    { ids: [1, 2, 3], max: 5, special: true, expected: [1, 2, 3] },
    { ids: [101, 7, 8, 9, 102], max: 4, special: true, expected: [101, 7, 8, 102] },
    { ids: [7, 8, 9, 10], max: 2, special: false, expected: [7, 8] },
  ])('$ids to $max tokens (closing special: $special)', ({ ids, max, special, expected }) => {
    expect(truncateIds(ids, max, special)).toEqual(expected);
  });
});

describe('padBatch', () => {
  it('right-pads to the longest row and masks the padding', () => {
    const b = padBatch([[5, 6, 7], [8]], 0);
    expect([b.batch, b.sequence]).toEqual([2, 3]);
    expect(Array.from(b.inputIds, Number)).toEqual([5, 6, 7, 8, 0, 0]);
    expect(Array.from(b.attentionMask, Number)).toEqual([1, 1, 1, 1, 0, 0]);
    expect(Array.from(b.tokenTypeIds, Number)).toEqual([0, 0, 0, 0, 0, 0]);
  });

  it('uses the tokenizer pad id', () => {
    expect(Array.from(padBatch([[5, 6], [8]], 3).inputIds, Number)).toEqual([5, 6, 8, 3]);
  });
});

describe('poolTokens', () => {
  // Two rows of two tokens, dim 2; the second row's second token is padding.
  const hidden = [1, 2, 3, 4, 10, 20, 99, 99];
  const mask = BigInt64Array.from([1n, 1n, 1n, 0n]);
  const shape = { batch: 2, sequence: 2, dim: 2 };

  it.each([
    {
      pooling: 'mean' as const,
      expected: [
        [2, 3],
        [10, 20],
      ],
    },
    {
      pooling: 'cls' as const,
      expected: [
        [1, 2],
        [10, 20],
      ],
    },
  ])('$pooling pooling ignores the padded tokens', ({ pooling, expected }) => {
    expect(poolTokens(hidden, mask, shape, pooling).map((v) => Array.from(v))).toEqual(expected);
  });
});
