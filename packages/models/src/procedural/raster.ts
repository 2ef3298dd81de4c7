import type { Sharp } from 'sharp';
import { loadSharp } from '../sharp';
import { createRng, hash32 } from './prng';

/**
 * Pixel operations for style recipes. A `Raster` is interleaved 8-bit RGB, a `Plane` one 8-bit
 * channel; both clamp and round on write (Uint8ClampedArray), so results are the same bytes on
 * every run. Operations return new images and leave their inputs alone.
 *
 * Speed: a JavaScript pass over a 1024² RGB picture costs 5–15 ms, so a recipe's per-pixel colour
 * work is fused into one pass (`look`, compiled for the stages it uses); neighbourhood work that
 * libvips does well (blur, resize, convolution) goes through sharp; masks and textures that
 * depend only on the size are cached; thick ink is traced at half size.
 */
export interface Raster {
  readonly width: number;
  readonly height: number;
  readonly data: Uint8ClampedArray;
}

export interface Plane {
  readonly width: number;
  readonly height: number;
  readonly data: Uint8ClampedArray;
}

export type Rgb = readonly [number, number, number];
/** 256 entries, or one table per channel. */
export type Curve = Uint8ClampedArray | readonly [Uint8ClampedArray, Uint8ClampedArray, Uint8ClampedArray];

// Math's functions as module constants: inside Jest's sandbox every global lookup in a hot loop
// costs a slow interceptor call (100× slower); a closure variable costs nothing anywhere.
const { ceil, floor, max, min, pow, round, sqrt, PI } = Math;

const view = (b: Buffer) => new Uint8ClampedArray(b.buffer, b.byteOffset, b.length);

export const createRaster = (width: number, height: number): Raster => ({ width, height, data: new Uint8ClampedArray(width * height * 3) });
const planeLike = (r: { width: number; height: number }): Plane => ({ width: r.width, height: r.height, data: new Uint8ClampedArray(r.width * r.height) });

const smoothstep = (e0: number, e1: number, x: number) => {
  const t = min(1, max(0, (x - e0) / (e1 - e0)));
  return t * t * (3 - 2 * t);
};

// ---------------------------------------------------------------------------------------------
// A small cache for things that depend only on size and fixed parameters (masks, textures).

const cache = new Map<string, Plane>();
let cachedBytes = 0;
// Every recipe's textures and masks for one 1024² size take about 50 MiB.
const cacheLimitBytes = 64 * 1024 * 1024;

const remember = (key: string, plane: Plane): Plane => {
  if (plane.data.length > cacheLimitBytes / 4) return plane;
  while (cachedBytes + plane.data.length > cacheLimitBytes) {
    const [oldest, old] = cache.entries().next().value!;
    cache.delete(oldest);
    cachedBytes -= old.data.length;
  }
  cache.set(key, plane);
  cachedBytes += plane.data.length;
  return plane;
};

const memo = (key: string, build: () => Plane): Plane => cache.get(key) ?? remember(key, build());
const memoAsync = async (key: string, build: () => Promise<Plane>): Promise<Plane> => cache.get(key) ?? remember(key, await build());

/**
 * A plane that depends only on `key` (size, parameters, seed), built once and kept in a small
 * bounded cache: textures and masks a recipe reuses for every picture of a size.
 */
export const cachedPlane = memoAsync;

// ---------------------------------------------------------------------------------------------
// sharp in and out

/** Renders a pipeline to RGB pixels (alpha dropped). */
export const rasterOf = async (image: Sharp): Promise<Raster> => {
  const { data, info } = await image.removeAlpha().raw().toBuffer({ resolveWithObject: true });
  if (info.channels !== 3) throw new Error(`expected 3 channels, got ${info.channels}`);
  return { width: info.width, height: info.height, data: view(data) };
};

export const sharpOf = (r: Raster): Sharp => loadSharp()(r.data, { raw: { width: r.width, height: r.height, channels: 3 } });

const through = async <T extends Raster | Plane>(img: T, channels: 1 | 3, op: (s: Sharp) => Sharp): Promise<T> => {
  const pipeline = op(loadSharp()(img.data, { raw: { width: img.width, height: img.height, channels } }));
  // sharp writes one-channel input back out as sRGB unless told to keep the single band.
  const out = await (channels === 1 ? pipeline.toColourspace('b-w') : pipeline).raw().toBuffer();
  if (out.length !== img.width * img.height * channels) throw new Error(`sharp returned ${out.length} bytes, expected ${img.width * img.height * channels}`);
  return { width: img.width, height: img.height, data: view(out) } as T;
};

/** Gaussian blur; sigmas below sharp's minimum leave the image as it is. */
export const blur = (r: Raster, sigma: number): Promise<Raster> => (sigma < 0.3 ? Promise.resolve(r) : through(r, 3, (s) => s.blur(sigma)));
export const blurPlane = (p: Plane, sigma: number): Promise<Plane> => (sigma < 0.3 ? Promise.resolve(p) : through(p, 1, (s) => s.blur(sigma)));

/** 3×3 sharpening convolution: `amount` 0 leaves the picture, 1 is crisp. */
export const sharpen = (r: Raster, amount: number): Promise<Raster> => {
  const a = amount;
  return through(r, 3, (s) => s.convolve({ width: 3, height: 3, kernel: [0, -a, 0, -a, 1 + 4 * a, -a, 0, -a, 0] }));
};

/** Only what is brighter than `threshold`, scaled by `gain`, then blurred: the light for a bloom. */
export const glow = (r: Raster, threshold: number, gain: number, sigma: number): Promise<Raster> =>
  through(r, 3, (s) => s.linear(gain, -threshold * gain).blur(max(0.3, sigma)));

/** Doubles a plane's size, bilinear: the same result as the general path below, in a third of the time. */
const double = (p: Plane, width: number, height: number): Plane => {
  const { width: sw, height: sh, data: s } = p;
  // Horizontal pass into floats: output x sits at source x/2 − 0.25.
  const rows = new Float32Array(width * sh);
  for (let y = 0; y < sh; y++) {
    const row = y * sw;
    const o = y * width;
    for (let x = 0; x < width; x++) {
      const c = x >> 1;
      const n = x & 1 ? min(sw - 1, c + 1) : max(0, c - 1);
      rows[o + x] = 0.75 * s[row + min(sw - 1, c)] + 0.25 * s[row + n];
    }
  }
  const out = planeLike({ width, height });
  for (let y = 0; y < height; y++) {
    const c = min(sh - 1, y >> 1);
    const n = y & 1 ? min(sh - 1, c + 1) : max(0, c - 1);
    const a = c * width;
    const b = n * width;
    const o = y * width;
    for (let x = 0; x < width; x++) out.data[o + x] = 0.75 * rows[a + x] + 0.25 * rows[b + x];
  }
  return out;
};

/**
 * A plane resized to exactly width×height, bilinear (pixel centres aligned). Written out rather
 * than through sharp, which widens a one-band image to three and back: four times slower here.
 */
export const resizePlane = (p: Plane, width: number, height: number): Plane => {
  if (width === 2 * p.width && height === 2 * p.height) return double(p, width, height);
  const out = planeLike({ width, height });
  const sx = p.width / width;
  const sy = p.height / height;
  const x0 = new Int32Array(width);
  const x1 = new Int32Array(width);
  const fx = new Float32Array(width);
  for (let x = 0; x < width; x++) {
    const v = min(p.width - 1, max(0, (x + 0.5) * sx - 0.5));
    x0[x] = floor(v);
    x1[x] = min(p.width - 1, x0[x] + 1);
    fx[x] = v - x0[x];
  }
  const s = p.data;
  for (let y = 0, j = 0; y < height; y++) {
    const v = min(p.height - 1, max(0, (y + 0.5) * sy - 0.5));
    const r0 = floor(v) * p.width;
    const r1 = min(p.height - 1, floor(v) + 1) * p.width;
    const fy = v - floor(v);
    for (let x = 0; x < width; x++, j++) {
      const top = s[r0 + x0[x]] + (s[r0 + x1[x]] - s[r0 + x0[x]]) * fx[x];
      const bottom = s[r1 + x0[x]] + (s[r1 + x1[x]] - s[r1 + x0[x]]) * fx[x];
      out.data[j] = top + (bottom - top) * fy;
    }
  }
  return out;
};

/** Resizes to exactly width×height. `nearest` keeps hard pixel edges. */
export const resize = (r: Raster, width: number, height: number, kernel: 'nearest' | 'linear' | 'cubic'): Promise<Raster> =>
  loadSharp()(r.data, { raw: { width: r.width, height: r.height, channels: 3 } })
    .resize(width, height, { fit: 'fill', kernel })
    .raw()
    .toBuffer()
    .then((b) => ({ width, height, data: view(b) }));

// ---------------------------------------------------------------------------------------------
// Tables

/** A 256-entry lookup table from a function on 0..255. */
export const lut = (fn: (v: number) => number): Uint8ClampedArray => {
  const t = new Uint8ClampedArray(256);
  for (let v = 0; v < 256; v++) t[v] = fn(v);
  return t;
};

/** Table `b` after table `a`. */
export const chain = (a: Uint8ClampedArray, b: Uint8ClampedArray): Uint8ClampedArray => lut((v) => b[a[v]]);

/** S-shaped contrast around `pivot`: k = 0 leaves values alone, 1 is strong. */
export const sCurve = (k: number, pivot = 128): Uint8ClampedArray =>
  lut((v) => {
    const x = v / 255;
    const p = pivot / 255;
    const e = 1 + k * 1.5;
    return 255 * (x < p ? p * pow(x / p, e) : 1 - (1 - p) * pow((1 - x) / (1 - p), e));
  });

/** Maps 0..255 onto lo..hi with a gamma (lifted blacks, softened whites, brighter mid-tones). */
export const levels = (lo: number, hi: number, gamma = 1): Uint8ClampedArray => lut((v) => lo + (hi - lo) * pow(v / 255, gamma));

/** `n` flat steps per channel. */
export const posterise = (n: number): Uint8ClampedArray => {
  const steps = max(2, round(n)) - 1;
  return lut((v) => (round((v / 255) * steps) / steps) * 255);
};

/** A luma → colour table from stops [position 0..1, colour], for `look`'s `map`. */
export const gradient = (stops: ReadonlyArray<readonly [number, Rgb]>): Uint8ClampedArray => {
  const table = new Uint8ClampedArray(256 * 3);
  for (let v = 0; v < 256; v++) {
    const x = v / 255;
    let k = 0;
    while (k < stops.length - 2 && x > stops[k + 1][0]) k++;
    const [x0, c0] = stops[k];
    const [x1, c1] = stops[k + 1];
    const t = min(1, max(0, (x - x0) / (x1 - x0 || 1)));
    for (let c = 0; c < 3; c++) table[v * 3 + c] = c0[c] + (c1[c] - c0[c]) * t;
  }
  return table;
};

/** Nearest colour of a palette, as a 32×32×32 table for `look`'s `palette` (build once). */
export interface Palette {
  readonly index: Uint8Array;
  readonly colours: Uint8ClampedArray;
}

export const palette = (colours: readonly Rgb[]): Palette => {
  const index = new Uint8Array(32 * 32 * 32);
  for (let q = 0; q < index.length; q++) {
    const R = ((q >> 10) << 3) + 4;
    const G = (((q >> 5) & 31) << 3) + 4;
    const B = ((q & 31) << 3) + 4;
    let best = 0;
    let bestD = Infinity;
    colours.forEach(([pr, pg, pb], k) => {
      const dist = (R - pr) ** 2 * 0.3 + (G - pg) ** 2 * 0.59 + (B - pb) ** 2 * 0.11;
      if (dist < bestD) [best, bestD] = [k, dist];
    });
    index[q] = best;
  }
  return { index, colours: Uint8ClampedArray.from(colours.flat()) };
};

/** Greyscale as a colour matrix (Rec. 601). */
export const GREY: readonly number[] = [0.299, 0.587, 0.114, 0.299, 0.587, 0.114, 0.299, 0.587, 0.114];

// ---------------------------------------------------------------------------------------------
// The fused colour pass

export interface Overlay {
  /** 0 none .. 255 full. */
  readonly mask: Plane;
  /** A flat colour, or the matching pixel of another picture. */
  readonly colour: Rgb | Raster;
  readonly opacity?: number;
  /** Sample the mask at the warped position (with `warp`). */
  readonly warped?: boolean;
}

/**
 * Everything a recipe does pixel by pixel, in one pass, in this order:
 * warp (sample the source elsewhere) → blend towards `blendTo` through a mask → colour matrix →
 * split tone → saturation → `flatten` → gradient `map` → `palette` → `curve` → `screen` light → `relief`
 * (added) → overlays (painted) → `texture` (multiplied) → `grain` (added) → mix with `original`
 * by `strength`.
 */
export interface Look {
  readonly warp?: { readonly fx: Plane; readonly fy: Plane; readonly amount: number };
  readonly blendTo?: { readonly image: Raster; readonly mask: Plane };
  readonly matrix?: readonly number[];
  readonly offset?: Rgb;
  readonly tone?: { readonly shadow: Rgb; readonly highlight: Rgb };
  readonly saturation?: number;
  /** Flat colour areas: brightness in `levels` steps, colour (chroma) in steps of `chroma`. */
  readonly flatten?: { readonly levels: number; readonly chroma: number };
  readonly map?: { readonly table: Uint8ClampedArray; readonly amount: number };
  readonly palette?: Palette;
  readonly curve?: Curve;
  readonly screen?: { readonly light: Raster; readonly amount: number };
  readonly relief?: { readonly plane: Plane; readonly amount: number };
  readonly overlays?: readonly Overlay[];
  readonly texture?: { readonly plane: Plane; readonly amount: number };
  readonly grain?: { readonly plane: Plane; readonly amount: number };
}

const none = new Uint8ClampedArray(0);

/**
 * `look` runs a loop compiled for the stages a look uses. One general loop that tests every
 * option per pixel takes about twice as long as a loop with only the needed stages, so the body
 * is assembled from the fixed snippets below and compiled once per combination of stages (about
 * one per recipe). Only these constant snippets become code; every value (tables, planes,
 * numbers) is passed in through `p`.
 */
const SNIPPETS = {
  warp: `
        sx = floor(x + (wx[j] - 128) * warpK + 0.5); sy = floor(y + (wy[j] - 128) * warpK + 0.5);
        sx = sx < 0 ? 0 : sx >= w ? w - 1 : sx; sy = sy < 0 ? 0 : sy >= h ? h - 1 : sy;
        jw = sy * w + sx; o = jw * 3;`,
  blend: `
        k = blendMask[jw] / 255;
        r += (blendImg[o] - r) * k; g += (blendImg[o + 1] - g) * k; b += (blendImg[o + 2] - b) * k;`,
  matrix: `
        R = r; G = g; B = b;
        r = m0 * R + m1 * G + m2 * B + o0; g = m3 * R + m4 * G + m5 * B + o1; b = m6 * R + m7 * G + m8 * B + o2;`,
  tone: `
        lum = (r * 0.299 + g * 0.587 + b * 0.114) / 255; lum = lum < 0 ? 0 : lum > 1 ? 1 : lum;
        ws = (1 - lum) * (1 - lum); wh = lum * lum;
        r += ts0 * ws + th0 * wh; g += ts1 * ws + th1 * wh; b += ts2 * ws + th2 * wh;`,
  saturation: `
        lum = r * 0.299 + g * 0.587 + b * 0.114;
        r = lum + (r - lum) * sat; g = lum + (g - lum) * sat; b = lum + (b - lum) * sat;`,
  flatten: `
        lum = r * 0.299 + g * 0.587 + b * 0.114; lq = round(lum / lStep) * lStep;
        r = lq + round((r - lum) / cStep) * cStep; b = lq + round((b - lum) / cStep) * cStep;
        g = (lq - 0.299 * r - 0.114 * b) / 0.587;`,
  map: `
        q = byte(r * 0.299 + g * 0.587 + b * 0.114) * 3;
        r += (mapTable[q] - r) * mapK; g += (mapTable[q + 1] - g) * mapK; b += (mapTable[q + 2] - b) * mapK;`,
  palette: `
        q = palIndex[((byte(r) >> 3) << 10) | ((byte(g) >> 3) << 5) | (byte(b) >> 3)] * 3;
        r = palColours[q]; g = palColours[q + 1]; b = palColours[q + 2];`,
  curve: `
        r = cr[byte(r)]; g = cg[byte(g)]; b = cb[byte(b)];`,
  screen: `
        r += (255 - r) * light[i] * scrK; g += (255 - g) * light[i + 1] * scrK; b += (255 - b) * light[i + 2] * scrK;`,
  relief: `
        v = (reliefP[j] - 128) * reliefK; r += v; g += v; b += v;`,
  texture: `
        k = 1 + (texP[j] - 128) * texK; r *= k; g *= k; b *= k;`,
  grain: `
        v = (grainP[j] - 128) * grainK; r += v; g += v; b += v;`,
  fade: `
        r = orig[i] + (r - orig[i]) * t; g = orig[i + 1] + (g - orig[i + 1]) * t; b = orig[i + 2] + (b - orig[i + 2]) * t;`,
} as const;

/** Overlay `n`: a flat colour or another picture's pixel, through its mask. */
const overlaySnippet = (n: number, flat: boolean, warped: boolean) => `
        a = ov${n}[${warped ? 'jw' : 'j'}] * ovK${n};
        if (a !== 0) {
          r += (${flat ? `ovR${n}` : `ovImg${n}[i]`} - r) * a;
          g += (${flat ? `ovG${n}` : `ovImg${n}[i + 1]`} - g) * a;
          b += (${flat ? `ovB${n}` : `ovImg${n}[i + 2]`} - b) * a;
        }`;

type Stage = keyof typeof SNIPPETS;
type Kernel = (p: Record<string, unknown>) => void;
const kernels = new Map<string, Kernel>();

const kernelFor = (stages: readonly Stage[], overlays: ReadonlyArray<{ flat: boolean; warped: boolean }>): Kernel => {
  const key = `${stages.join(' ')} | ${overlays.map((o) => `${o.flat ? 'f' : 'i'}${o.warped ? 'w' : ''}`).join(' ')}`;
  const hit = kernels.get(key);
  if (hit) return hit;
  const late: readonly Stage[] = ['texture', 'grain', 'fade'];
  const colour = stages.filter((st) => st !== 'warp' && !late.includes(st)).map((st) => SNIPPETS[st]);
  const after = stages.filter((st) => late.includes(st)).map((st) => SNIPPETS[st]);
  const locals = overlays.map(
    (_o, n) =>
      `const ov${n} = p.overlays[${n}].mask, ovK${n} = p.overlays[${n}].k, ovR${n} = p.overlays[${n}].r, ovG${n} = p.overlays[${n}].g, ovB${n} = p.overlays[${n}].b, ovImg${n} = p.overlays[${n}].image;`,
  );
  const body = `
    const { floor, round } = Math;
    const byte = (v) => (v <= 0 ? 0 : v >= 255 ? 255 : (v + 0.5) | 0);
    const { s, d, w, h, wx, wy, warpK, blendImg, blendMask, m0, m1, m2, m3, m4, m5, m6, m7, m8, o0, o1, o2,
      ts0, ts1, ts2, th0, th1, th2, sat, lStep, cStep, mapTable, mapK, palIndex, palColours, cr, cg, cb,
      light, scrK, reliefP, reliefK, texP, texK, grainP, grainK, orig, t } = p;
    ${locals.join('\n    ')}
    let r = 0, g = 0, b = 0, R = 0, G = 0, B = 0, k = 0, a = 0, v = 0, q = 0, lum = 0, lq = 0, ws = 0, wh = 0, sx = 0, sy = 0;
    for (let y = 0, j = 0; y < h; y++) {
      for (let x = 0; x < w; x++, j++) {
        const i = j * 3;
        let o = i, jw = j;
        ${stages.includes('warp') ? SNIPPETS.warp : ''}
        r = s[o]; g = s[o + 1]; b = s[o + 2];
        ${colour.join('')}
        ${overlays.map((o, n) => overlaySnippet(n, o.flat, o.warped)).join('')}
        ${after.join('')}
        d[i] = r; d[i + 1] = g; d[i + 2] = b;
      }
    }`;
  // Assembled from the constant snippets above only: no caller-supplied text becomes code.
  const kernel = new Function('p', body) as Kernel;
  kernels.set(key, kernel);
  return kernel;
};

export const look = (src: Raster, l: Look, mixWith?: { original: Raster; strength: number }): Raster => {
  const out = createRaster(src.width, src.height);
  const stages: Stage[] = [];
  const use = (stage: Stage, on: boolean) => on && stages.push(stage);
  use('warp', l.warp !== undefined);
  use('blend', l.blendTo !== undefined);
  use('matrix', l.matrix !== undefined || l.offset !== undefined);
  use('tone', l.tone !== undefined);
  use('saturation', l.saturation !== undefined && l.saturation !== 1);
  use('flatten', l.flatten !== undefined);
  use('map', l.map !== undefined);
  use('palette', l.palette !== undefined);
  use('curve', l.curve !== undefined);
  use('screen', l.screen !== undefined);
  use('relief', l.relief !== undefined);
  use('texture', l.texture !== undefined);
  use('grain', l.grain !== undefined);
  use('fade', mixWith !== undefined && mixWith.strength < 1);
  const overlays = (l.overlays ?? []).map((o) => {
    const flat = Array.isArray(o.colour) ? (o.colour as Rgb) : undefined;
    return {
      mask: o.mask.data,
      k: (o.opacity ?? 1) / 255,
      r: flat?.[0] ?? 0,
      g: flat?.[1] ?? 0,
      b: flat?.[2] ?? 0,
      image: flat ? none : (o.colour as Raster).data,
      flat: flat !== undefined,
      warped: o.warped === true,
    };
  });
  const [m0, m1, m2, m3, m4, m5, m6, m7, m8] = l.matrix ?? [1, 0, 0, 0, 1, 0, 0, 0, 1];
  const [o0, o1, o2] = l.offset ?? [0, 0, 0];
  const [ts0, ts1, ts2] = l.tone?.shadow ?? [0, 0, 0];
  const [th0, th1, th2] = l.tone?.highlight ?? [0, 0, 0];
  const [cr, cg, cb] = l.curve === undefined ? [none, none, none] : l.curve instanceof Uint8ClampedArray ? [l.curve, l.curve, l.curve] : l.curve;
  kernelFor(
    stages,
    overlays,
  )({
    s: src.data,
    d: out.data,
    w: src.width,
    h: src.height,
    wx: l.warp?.fx.data ?? none,
    wy: l.warp?.fy.data ?? none,
    warpK: l.warp ? l.warp.amount / 128 : 0,
    blendImg: l.blendTo?.image.data ?? none,
    blendMask: l.blendTo?.mask.data ?? none,
    m0,
    m1,
    m2,
    m3,
    m4,
    m5,
    m6,
    m7,
    m8,
    o0,
    o1,
    o2,
    ts0,
    ts1,
    ts2,
    th0,
    th1,
    th2,
    sat: l.saturation ?? 1,
    lStep: l.flatten ? 255 / (max(2, l.flatten.levels) - 1) : 1,
    cStep: l.flatten ? max(1, l.flatten.chroma) : 1,
    mapTable: l.map?.table ?? none,
    mapK: l.map?.amount ?? 0,
    palIndex: l.palette?.index ?? new Uint8Array(0),
    palColours: l.palette?.colours ?? none,
    cr,
    cg,
    cb,
    light: l.screen?.light.data ?? none,
    scrK: l.screen ? l.screen.amount / 255 : 0,
    reliefP: l.relief?.plane.data ?? none,
    reliefK: l.relief?.amount ?? 0,
    texP: l.texture?.plane.data ?? none,
    texK: l.texture ? l.texture.amount / 128 : 0,
    grainP: l.grain?.plane.data ?? none,
    grainK: l.grain?.amount ?? 0,
    orig: mixWith?.original.data ?? none,
    t: mixWith?.strength ?? 1,
    overlays,
  });
  return out;
};

// ---------------------------------------------------------------------------------------------
// Planes

/** Rec. 601 luma, integer arithmetic. */
export const luma = (r: Raster): Plane => {
  const out = planeLike(r);
  const s = r.data;
  const d = out.data;
  for (let i = 0, j = 0; j < d.length; i += 3, j++) d[j] = (s[i] * 77 + s[i + 1] * 150 + s[i + 2] * 29) >> 8;
  return out;
};

export const mapPlane = (p: Plane, table: Uint8ClampedArray): Plane => {
  const out = planeLike(p);
  for (let j = 0; j < p.data.length; j++) out.data[j] = table[p.data[j]];
  return out;
};

/** Per-pixel product of two planes (255 × 255 → 255): one mask inside another. */
export const multiplyPlanes = (a: Plane, b: Plane): Plane => {
  const out = planeLike(a);
  for (let j = 0; j < a.data.length; j++) out.data[j] = (a.data[j] * b.data[j]) / 255;
  return out;
};

/** a − b, clamped at 0: what stands out above its surroundings (with b a blurred a). */
export const subtractPlanes = (a: Plane, b: Plane): Plane => {
  const out = planeLike(a);
  for (let j = 0; j < a.data.length; j++) out.data[j] = a.data[j] - b.data[j];
  return out;
};

/** Weighted sum of planes centred on 128. */
export const sumPlanes = (parts: ReadonlyArray<readonly [Plane, number]>): Plane => {
  const acc = new Float32Array(parts[0][0].data.length).fill(128);
  for (const [p, weight] of parts) {
    const d = p.data;
    for (let j = 0; j < acc.length; j++) acc[j] += (d[j] - 128) * weight;
  }
  const out = planeLike(parts[0][0]);
  out.data.set(acc);
  return out;
};

/** 0 below `lo`, 255 above `hi`, smooth between: turns gradient strength into ink. */
export const ramp = (p: Plane, lo: number, hi: number): Plane =>
  mapPlane(
    p,
    lut((v) => 255 * smoothstep(lo, hi, v)),
  );

/** Sobel gradient magnitude (|gx| + |gy| form), scaled so a black-to-white step reads about 255. */
export const sobel = (p: Plane): Plane => {
  const { width: w, height: h } = p;
  const out = planeLike(p);
  const s = p.data;
  const d = out.data;
  for (let y = 0; y < h; y++) {
    const up = (y === 0 ? 0 : y - 1) * w;
    const mid = y * w;
    const down = (y === h - 1 ? y : y + 1) * w;
    for (let x = 0; x < w; x++) {
      const l = x === 0 ? 0 : x - 1;
      const r = x === w - 1 ? x : x + 1;
      const gx = s[up + r] + 2 * s[mid + r] + s[down + r] - s[up + l] - 2 * s[mid + l] - s[down + l];
      const gy = s[down + l] + 2 * s[down + x] + s[down + r] - s[up + l] - 2 * s[up + x] - s[up + r];
      d[mid + x] = ((gx < 0 ? -gx : gx) + (gy < 0 ? -gy : gy)) * 0.25;
    }
  }
  return out;
};

/** Lines `radius` pixels thicker: blurred, then pushed back to full strength. */
export const thicken = async (p: Plane, radius: number): Promise<Plane> =>
  radius < 0.5
    ? p
    : mapPlane(
        await blurPlane(p, radius * 0.7),
        lut((v) => v * 3.2),
      );

/** Directional relief of a height map, centred on 128 (light from the top left). */
export const emboss = (p: Plane, gain: number, step = 1): Plane => {
  const { width: w, height: h } = p;
  const k = max(1, round(step));
  const out = planeLike(p);
  for (let y = 0; y < h; y++) {
    const a = max(0, y - k) * w;
    const b = min(h - 1, y + k) * w;
    for (let x = 0; x < w; x++) out.data[y * w + x] = 128 + (p.data[a + max(0, x - k)] - p.data[b + min(w - 1, x + k)]) * gain;
  }
  return out;
};

/** Colour-dodge of a picture's grey by its blurred negative: a pencil drawing's tone. */
export const dodge = (grey: Plane, blurredNegative: Plane): Plane => {
  const out = planeLike(grey);
  for (let j = 0; j < grey.data.length; j++) out.data[j] = (grey.data[j] * 255) / (256 - blurredNegative.data[j]);
  return out;
};

export const invertPlane = (p: Plane): Plane =>
  mapPlane(
    p,
    lut((v) => 255 - v),
  );

/** For each pixel of a dot screen: its cell centre (an index) and its distance from it (0..255). */
interface DotScreen {
  readonly centre: Int32Array;
  readonly distance: Uint8Array;
}

const screens = new Map<string, DotScreen>();
/** Distance byte per cell size: 255 is 0.75 cell (a dot never reaches further). */
const distanceScale = 255 / 0.75;

const dotScreen = (w: number, h: number, c: number): DotScreen => {
  const key = `${w}x${h} ${c}`;
  const hit = screens.get(key);
  if (hit) return hit;
  const centre = new Int32Array(w * h);
  const distance = new Uint8Array(w * h);
  for (let y = 0, j = 0; y < h; y++) {
    const row = floor(y / c);
    const shift = row % 2 === 0 ? 0 : c / 2;
    const cy = (row + 0.5) * c;
    const fy = (y - cy) / c;
    const sy = min(h - 1, round(cy)) * w;
    for (let x = 0; x < w; x++, j++) {
      const cx = (floor((x + shift) / c) + 0.5) * c - shift;
      const fx = (x - cx) / c;
      centre[j] = sy + min(w - 1, max(0, round(cx)));
      distance[j] = min(255, sqrt(fx * fx + fy * fy) * distanceScale);
    }
  }
  if (screens.size >= 2) screens.delete(screens.keys().next().value!);
  const screen = { centre, distance };
  screens.set(key, screen);
  return screen;
};

/** Dot coverage by (darkness byte, distance byte): a soft-edged disc whose area is the darkness. */
const dotTable = (() => {
  const t = new Uint8ClampedArray(256 * 256);
  for (let dark = 0; dark < 256; dark++) {
    const r = sqrt(dark / 255 / PI);
    for (let dq = 0; dq < 256; dq++) t[(dark << 8) | dq] = 255 * smoothstep(r + 0.08, r - 0.08, dq / distanceScale);
  }
  return t;
})();

/**
 * Ben-Day dots: one dot per `cell` square (rows offset by half a cell), its area following the
 * darkness of `tone` at the dot's centre. 255 inside a dot.
 */
export const dotsMask = (tone: Plane, cell: number): Plane => {
  const { centre, distance } = dotScreen(tone.width, tone.height, max(3, cell));
  const out = planeLike(tone);
  const t = tone.data;
  for (let j = 0; j < out.data.length; j++) out.data[j] = dotTable[((255 - t[centre[j]]) << 8) | distance[j]];
  return out;
};

// ---------------------------------------------------------------------------------------------
// Cached masks and textures (depend on size and parameters only)

/** 0 inside an ellipse of relative radius `inner`, rising to 255 at `outer` (1 ≈ the corners). */
export const radialMask = (width: number, height: number, inner: number, outer: number, centreY = 0.5): Plane =>
  memo(`radial ${width}x${height} ${inner} ${outer} ${centreY}`, () => {
    const out = planeLike({ width, height });
    const cx = (width - 1) / 2;
    const cy = (height - 1) * centreY;
    const dx2 = new Float64Array(width);
    for (let x = 0; x < width; x++) dx2[x] = ((x - cx) / (width / 2)) ** 2 / 2;
    for (let y = 0, j = 0; y < height; y++) {
      const dy2 = ((y - cy) / (height / 2)) ** 2 / 2;
      for (let x = 0; x < width; x++, j++) out.data[j] = 255 * smoothstep(inner, outer, sqrt(dx2[x] + dy2));
    }
    return out;
  });

/** 255 at the picture's border, falling to 0 at `inner` (a fraction of the shorter side) inwards. */
export const borderMask = (width: number, height: number, inner: number): Plane =>
  memo(`border ${width}x${height} ${inner}`, () => {
    const out = planeLike({ width, height });
    const reach = max(1, inner * min(width, height));
    for (let y = 0, j = 0; y < height; y++) {
      const dy = min(y, height - 1 - y);
      for (let x = 0; x < width; x++, j++) out.data[j] = 255 * (1 - min(1, min(dy, x, width - 1 - x) / reach));
    }
    return out;
  });

/** Lines every `spacing` pixels, `thickness` wide: a grid, rows only, or diagonal hatching. */
export const linesMask = (width: number, height: number, spacing: number, thickness: number, kind: 'grid' | 'rows' | 'hatch'): Plane => {
  const step = max(2, round(spacing));
  const t = max(1, round(thickness));
  return memo(`lines ${width}x${height} ${step} ${t} ${kind}`, () => {
    const out = planeLike({ width, height });
    for (let y = 0, j = 0; y < height; y++) {
      const onRow = y % step < t;
      for (let x = 0; x < width; x++, j++) {
        const on = kind === 'hatch' ? (x + y) % step < t : onRow || (kind === 'grid' && x % step < t);
        out.data[j] = on ? 255 : 0;
      }
    }
    return out;
  });
};

/** White noise centred on 128, ± `amplitude` (triangular), from a seeded generator. */
export const grainPlane = (width: number, height: number, amplitude: number, seed: string): Plane =>
  memo(`grain ${width}x${height} ${amplitude} ${seed}`, () => {
    const out = planeLike({ width, height });
    let x = hash32(seed) || 1;
    const k = amplitude / 4294967296;
    for (let j = 0; j < out.data.length; j++) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      const a = x >>> 0;
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      out.data[j] = 128 + (a - (x >>> 0)) * k;
    }
    return out;
  });

/**
 * Smooth value noise with features about `scale` pixels across, centred on 128: seeded random
 * values on a coarse grid, interpolated linearly, then blurred (no grid shows through).
 */
export const cloudPlane = (width: number, height: number, scale: number, seed: string): Promise<Plane> =>
  memoAsync(`cloud ${width}x${height} ${scale} ${seed}`, () => {
    const cell = max(1, scale);
    const gw = ceil(width / cell) + 2;
    const gh = ceil(height / cell) + 2;
    const rng = createRng(hash32(`cloud ${seed}`));
    const grid = new Float64Array(gw * gh);
    for (let j = 0; j < grid.length; j++) grid[j] = 16 + rng.next() * 224;
    // Per-column cell index and weight, computed once.
    const cx = new Int32Array(width);
    const tx = new Float64Array(width);
    for (let x = 0; x < width; x++) {
      const fx = x / cell;
      cx[x] = floor(fx);
      tx[x] = fx - cx[x];
    }
    const out = planeLike({ width, height });
    for (let y = 0, j = 0; y < height; y++) {
      const fy = y / cell;
      const cy = floor(fy);
      const ty = fy - cy;
      const r0 = cy * gw;
      const r1 = r0 + gw;
      for (let x = 0; x < width; x++, j++) {
        const c = cx[x];
        const top = grid[r0 + c] + (grid[r0 + c + 1] - grid[r0 + c]) * tx[x];
        const bottom = grid[r1 + c] + (grid[r1 + c + 1] - grid[r1 + c]) * tx[x];
        out.data[j] = top + (bottom - top) * ty;
      }
    }
    return blurPlane(out, cell * 0.45);
  });

/** Paper: broad blotches, fibres and fine grain, centred on 128. */
export const paperPlane = (width: number, height: number, u: number, seed: string, fine: number, coarse: number): Promise<Plane> =>
  memoAsync(`paper ${width}x${height} ${fine} ${coarse} ${seed}`, async () =>
    sumPlanes([
      [await cloudPlane(width, height, 220 * u, `${seed} blotch`), coarse],
      [await cloudPlane(width, height, max(2, 8 * u), `${seed} fibre`), 0.3],
      [grainPlane(width, height, fine, `${seed} grain`), 1],
    ]),
  );

/** Solid bars over the top and bottom `fraction` of the height (in place on a fresh raster). */
export const letterbox = (r: Raster, fraction: number, colour: Rgb): Raster => {
  const bar = round(r.height * max(0, min(0.5, fraction)));
  if (bar === 0) return r;
  const row = r.width * 3;
  for (const [from, to] of [
    [0, bar],
    [r.height - bar, r.height],
  ]) {
    for (let i = from * row; i < to * row; i += 3) {
      r.data[i] = colour[0];
      r.data[i + 1] = colour[1];
      r.data[i + 2] = colour[2];
    }
  }
  return r;
};
