import { editSize } from './edit-size';

describe('the size the playground asks an edit for', () => {
  it.each([
    ['a size the API takes is kept', 256, 256, 256, 256],
    ['a 640×448 photo', 640, 448, 640, 448],
    ['rounded to multiples of 64', 640, 480, 640, 512],
    ['a large photo is scaled down to 2048 on its long side', 4000, 3000, 2048, 1536],
    ['a small one is scaled up to 256 on its short side', 100, 150, 256, 384],
    ['a strip too long for both limits is cropped to them', 300, 3000, 256, 2048],
  ])('%s: %i×%i → %i×%i', (_case, width, height, w, h) => {
    expect(editSize(width, height)).toEqual({ width: w, height: h });
  });
});
