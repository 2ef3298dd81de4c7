import { seedsOfTakes } from './image-takes';

const drawing = (...values: number[]) => {
  let i = 0;
  return () => values[i++];
};

describe('seedsOfTakes', () => {
  it.each([
    { n: 1, seed: undefined, draws: [], expected: [undefined] },
    { n: 2, seed: undefined, draws: [7], expected: [undefined, 7] },
    { n: 4, seed: undefined, draws: [7, 9, 11], expected: [undefined, 7, 9, 11] },
    // A seed drawn twice is drawn again: every take is a different image.
    { n: 3, seed: undefined, draws: [7, 7, 8], expected: [undefined, 7, 8] },
    { n: 1, seed: 42, draws: [], expected: [42] },
    { n: 3, seed: 42, draws: [], expected: [42, 43, 44] },
    // The caller's seed at the top of the range wraps to 0.
    { n: 2, seed: 4294967295, draws: [], expected: [4294967295, 0] },
  ])('n=$n, seed=$seed → $expected', ({ n, seed, draws, expected }) => {
    expect(seedsOfTakes(n, seed, drawing(...draws))).toEqual(expected);
  });
});
