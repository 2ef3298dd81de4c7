import { calibrate, cosine, meaningScore } from './meaning-score';

const calibration = { floor: 0.1, ceiling: 0.5 };

describe('cosine of sparse unit vectors', () => {
  it.each([
    [{ terms: [1, 2], weights: [0.6, 0.8] }, { terms: [1, 2], weights: [0.6, 0.8] }, 1],
    [{ terms: [1, 2], weights: [0.6, 0.8] }, { terms: [3, 4], weights: [0.6, 0.8] }, 0],
    [{ terms: [1, 5, 9], weights: [0.6, 0.8, 0] }, { terms: [2, 5, 7], weights: [0.8, 0.5, 0.33] }, 0.4],
    [{ terms: [], weights: [] }, { terms: [1], weights: [1] }, 0],
  ])('%j · %j = %d', (a, b, expected) => {
    expect(cosine(a, b)).toBeCloseTo(expected, 6);
  });
});

describe('the calibrated instant-match score', () => {
  it.each([
    ['exact prompt, whatever else', { exact: true, trigram: 0.2, cosine: 0 }, 1],
    ['below the floor', { exact: false, trigram: 0, cosine: 0.05 }, 0],
    ['midway', { exact: false, trigram: 0, cosine: 0.3 }, 0.5],
    ['above the ceiling, still under 1', { exact: false, trigram: 0, cosine: 0.9 }, 0.99],
    ['near-exact spelling wins over a weak meaning', { exact: false, trigram: 0.8, cosine: 0.2 }, 0.8],
    ['not embedded: the lexical score alone', { exact: false, trigram: 0.4, cosine: null }, 0.4],
  ])('%s', (_name, match, expected) => {
    expect(meaningScore(match, calibration)).toBeCloseTo(expected, 6);
  });

  it('calibrate clamps to 0..1', () => {
    expect(calibrate(-1, calibration)).toBe(0);
    expect(calibrate(2, calibration)).toBe(1);
  });
});
