import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import sharp, { type OverlayOptions } from 'sharp';
import { STYLE_PRESETS } from '@promptpix/core';
import type { ModelRequest } from '@promptpix/core';
import { renderProcedural } from './procedural-model';
import { STYLE_RECIPES } from './recipes';
import { recipeFor } from './style';

/**
 * Styles are judged by image statistics, not golden bytes: a recipe may be retuned freely as
 * long as each free style stays recognisably itself and unlike the others.
 */

const FREE = ['photorealistic', 'cinematic', 'modern-illustration', 'cartoon', 'watercolor'] as const;
const PROMPTS = ['a cat watching the sunset over the ocean', 'a robot in a snowy forest at night', 'city skyline in the rain'];
const SIZE = 320;

const request = (over: Partial<ModelRequest>): ModelRequest => ({ prompt: PROMPTS[0], strength: 1, seed: 7, width: SIZE, height: SIZE, ...over });
const render = async (over: Partial<ModelRequest>) => (await renderProcedural(request(over))).data;

interface Measures {
  /** Mean brightness, 0..255. */
  brightness: number;
  /** Standard deviation of brightness: contrast. */
  contrast: number;
  /** Colourfulness: mean chroma (max − min channel), 0..255. Unlike HSV saturation, dark pixels count little. */
  saturation: number;
  /** % of pixels on a strong edge (Sobel magnitude over 96). */
  edges: number;
  /** Fine texture: mean |pixel − mean of its 4 neighbours| (capped at 16 so edges don't count). */
  texture: number;
  /** 16×16 thumbnail, RGB. */
  thumb: Buffer;
}

// Hot loops below: Math's functions as locals (global lookups are slow inside Jest's sandbox).
const { abs, hypot, max, min } = Math;

const measure = async (png: Buffer): Promise<Measures> => {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const { width: w, height: h } = info;
  const grey = new Float64Array(w * h);
  let sat = 0;
  for (let j = 0, i = 0; j < grey.length; j++, i += 3) {
    const [r, g, b] = [data[i], data[i + 1], data[i + 2]];
    grey[j] = 0.299 * r + 0.587 * g + 0.114 * b;
    sat += max(r, g, b) - min(r, g, b);
  }
  const mean = grey.reduce((a, v) => a + v, 0) / grey.length;
  const contrast = Math.sqrt(grey.reduce((a, v) => a + (v - mean) ** 2, 0) / grey.length);
  let edges = 0;
  let texture = 0;
  for (let y = 1; y < h - 1; y++) {
    for (let x = 1; x < w - 1; x++) {
      const at = (dx: number, dy: number) => grey[(y + dy) * w + x + dx];
      const gx = at(1, -1) + 2 * at(1, 0) + at(1, 1) - at(-1, -1) - 2 * at(-1, 0) - at(-1, 1);
      const gy = at(-1, 1) + 2 * at(0, 1) + at(1, 1) - at(-1, -1) - 2 * at(0, -1) - at(1, -1);
      if (hypot(gx, gy) > 96) edges++;
      texture += min(16, abs(at(0, 0) - (at(1, 0) + at(-1, 0) + at(0, 1) + at(0, -1)) / 4));
    }
  }
  const inner = (w - 2) * (h - 2);
  const thumb = await sharp(png).removeAlpha().resize(16, 16, { fit: 'fill' }).raw().toBuffer();
  return { brightness: mean, contrast, saturation: sat / grey.length, edges: (edges / inner) * 100, texture: texture / inner, thumb };
};

const thumbDistance = (a: Measures, b: Measures) => a.thumb.reduce((sum, v, i) => sum + abs(v - b.thumb[i]), 0) / a.thumb.length;

/**
 * "Clearly different" thresholds, one per measure. A pair of looks differs clearly when at least
 * one measure differs by its threshold or more. Thresholds sit well above what re-rendering noise
 * or a small retune moves (see the margins the report test prints).
 */
const THRESHOLDS = { brightness: 14, contrast: 10, saturation: 10, edges: 2, texture: 1.2, thumb: 14 } as const;
type MeasureName = keyof typeof THRESHOLDS;

const differences = (a: Measures, b: Measures): Record<MeasureName, number> => ({
  brightness: Math.abs(a.brightness - b.brightness) / THRESHOLDS.brightness,
  contrast: Math.abs(a.contrast - b.contrast) / THRESHOLDS.contrast,
  saturation: Math.abs(a.saturation - b.saturation) / THRESHOLDS.saturation,
  edges: Math.abs(a.edges - b.edges) / THRESHOLDS.edges,
  texture: Math.abs(a.texture - b.texture) / THRESHOLDS.texture,
  thumb: thumbDistance(a, b) / THRESHOLDS.thumb,
});

/** The measure that separates a pair best, and by how many thresholds. */
const bestSeparation = (a: Measures, b: Measures): [MeasureName, number] =>
  Object.entries(differences(a, b)).reduce<[MeasureName, number]>((best, [k, v]) => (v > best[1] ? [k as MeasureName, v] : best), ['brightness', 0]);

describe('style recipes: coverage', () => {
  it('has a recipe for every preset, and none for anything else', () => {
    const presetIds = STYLE_PRESETS.map((p) => p.id).sort();
    expect([...STYLE_RECIPES.keys()].sort()).toEqual(presetIds);
    for (const id of presetIds) expect(recipeFor(id)).toBeDefined();
  });

  it('finds recipes case-insensitively and ignores prototype keys and unknown names', () => {
    expect(recipeFor('WaterColor')).toBe(recipeFor('watercolor'));
    expect(recipeFor('  Cinematic ')).toBe(recipeFor('cinematic'));
    for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'no-such-style', '', undefined]) expect(recipeFor(name)).toBeUndefined();
  });

  it('renders an unknown style exactly like no style', async () => {
    expect((await render({ style: 'no-such-style' })).equals(await render({}))).toBe(true);
  });

  it.each(STYLE_PRESETS.map((p) => p.id))('%s renders 256² deterministically', async (style) => {
    const over = { style, width: 256, height: 256, prompt: PROMPTS[1] };
    const first = await renderProcedural(request(over));
    expect([first.width, first.height]).toEqual([256, 256]);
    const meta = await sharp(first.data).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 256, 256]);
    expect((await render(over)).equals(first.data)).toBe(true);
  });

  it.each([
    [512, 1536],
    [1536, 512],
    [320, 256],
  ])('keeps non-square sizes exactly (%i×%i)', async (width, height) => {
    for (const style of FREE) {
      const image = await renderProcedural(request({ style, width, height }));
      expect([image.width, image.height]).toEqual([width, height]);
    }
  });
});

describe('style recipes: strength', () => {
  /** Mean absolute difference of two renders, per channel value. */
  const distance = async (a: Buffer, b: Buffer) => {
    const [x, y] = await Promise.all([a, b].map((png) => sharp(png).removeAlpha().raw().toBuffer()));
    return x.reduce((sum, v, i) => sum + abs(v - y[i]), 0) / x.length;
  };

  it.each(STYLE_PRESETS.map((p) => p.id))('%s: strength 0 leaves the picture alone; 0.5 lies between 0 and 1', async (style) => {
    const plain = await render({ width: 256, height: 256 });
    const at = (strength: number) => render({ style, strength, width: 256, height: 256 });
    const [none, half, full] = await Promise.all([at(0), at(0.5), at(1)]);
    expect(await distance(none, plain)).toBeLessThan(0.5);
    const [dHalf, dFull] = [await distance(half, plain), await distance(full, plain)];
    expect(dFull).toBeGreaterThan(4);
    expect(dHalf).toBeGreaterThan(dFull * 0.2);
    expect(dHalf).toBeLessThan(dFull * 0.85);
  });

  it('a tiny strength makes only a small change', async () => {
    const plain = await render({});
    for (const style of FREE) expect(await distance(await render({ style, strength: 0.02 }), plain)).toBeLessThan(2);
  });
});

describe('style recipes: the five free styles look different', () => {
  const looks = ['none', ...FREE] as const;
  let measured: Record<string, Record<string, Measures>>;

  beforeAll(async () => {
    measured = {};
    for (const prompt of PROMPTS) {
      measured[prompt] = {};
      for (const look of looks) measured[prompt][look] = await measure(await render({ prompt, style: look === 'none' ? undefined : look }));
    }
  });

  const pairs = looks.flatMap((a, i) => looks.slice(i + 1).map((b) => [a, b] as const));

  it.each(pairs)('%s vs %s differ clearly by at least one measure, for every prompt', (a, b) => {
    for (const prompt of PROMPTS) {
      const [name, by] = bestSeparation(measured[prompt][a], measured[prompt][b]);
      // `by` is in thresholds: ≥ 1 means clearly different on `name`.
      expect({ prompt, a, b, name, clearly: by >= 1 }).toEqual({ prompt, a, b, name, clearly: true });
    }
  });

  it('each free style keeps its signature', () => {
    for (const prompt of PROMPTS) {
      const m = measured[prompt];
      // Photorealistic: film grain and defocus add fine texture; the picture stays put.
      expect(m.photorealistic.texture - m.none.texture).toBeGreaterThan(THRESHOLDS.texture);
      // Cinematic: letterbox bars and a hard grade darken the frame.
      expect(m.none.brightness - m.cinematic.brightness).toBeGreaterThan(THRESHOLDS.brightness * 0.5);
      // Modern illustration: lighter pastel picture, smooth flat fills.
      expect(m['modern-illustration'].brightness - m.none.brightness).toBeGreaterThan(THRESHOLDS.brightness);
      expect(m['modern-illustration'].texture).toBeLessThan(m.photorealistic.texture);
      // Cartoon: outlines everywhere and louder colour.
      expect(m.cartoon.edges - m.none.edges).toBeGreaterThan(THRESHOLDS.edges);
      expect(m.cartoon.saturation - m.none.saturation).toBeGreaterThan(THRESHOLDS.saturation * 0.5);
      // Watercolor: lifted whites and paper grain (more fine texture than the flat modern illustration).
      expect(m.watercolor.brightness - m.none.brightness).toBeGreaterThan(THRESHOLDS.brightness);
      expect(m.watercolor.texture - m['modern-illustration'].texture).toBeGreaterThan(THRESHOLDS.texture * 0.5);
    }
  });

  it('reports the measures and the weakest separations (see test output)', () => {
    const rows: string[] = [];
    let weakest = Infinity;
    for (const prompt of PROMPTS) {
      for (const look of looks) {
        const m = measured[prompt][look];
        rows.push(
          `${prompt.slice(0, 14).padEnd(14)} ${look.padEnd(20)} bright ${m.brightness.toFixed(1).padStart(5)} contrast ${m.contrast.toFixed(1).padStart(5)} ` +
            `sat ${m.saturation.toFixed(1).padStart(5)} edges ${m.edges.toFixed(2).padStart(5)} texture ${m.texture.toFixed(2).padStart(5)} ` +
            `thumb-from-none ${thumbDistance(m, measured[prompt].none).toFixed(1).padStart(5)}`,
        );
      }
      for (const [a, b] of pairs) {
        const [name, by] = bestSeparation(measured[prompt][a], measured[prompt][b]);
        weakest = Math.min(weakest, by);
        rows.push(`  ${a} vs ${b}: best ${name} ×${by.toFixed(2)}`);
      }
    }
    if (process.env.STYLE_REPORT) console.log(rows.join('\n'));
    expect(weakest).toBeGreaterThanOrEqual(1);
  });

  it('saves one sample per free style to test-artifacts/styles', async () => {
    const dir = path.resolve(__dirname, '../../../../test-artifacts/styles');
    mkdirSync(dir, { recursive: true });
    const tiles: OverlayOptions[] = [];
    const cell = 512;
    for (const [k, look] of looks.entries()) {
      const data = await render({ prompt: PROMPTS[0], style: look === 'none' ? undefined : look, width: cell, height: cell });
      writeFileSync(path.join(dir, `${look}.png`), data);
      tiles.push({ input: data, left: (k % 3) * cell, top: Math.floor(k / 3) * cell });
    }
    await sharp({ create: { width: 3 * cell, height: 2 * cell, channels: 3, background: '#808080' } })
      .composite(tiles)
      .png()
      .toFile(path.join(dir, 'free-styles.png'));
  });
});
