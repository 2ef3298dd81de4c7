import sharp, { type Sharp } from 'sharp';
import { createRng, hash32 } from './prng';

/**
 * Pixel operations for style recipes. A `Raster` is interleaved 8-bit RGB, a `Plane` one 8-bit
 * channel; both clamp and round on write (Uint8ClampedArray), so results are the same bytes on
 * every run. Operations return new images and leave their inputs alone.
 *
 * Speed: a JavaScript pass over a 1024² RGB picture costs 10–15 ms, so per-pixel colour work is
 * fused into one pass (`look`); neighbourhood work that libvips does well (blur, resize,
 * convolution) goes through sharp; masks and textures that depend only on the size are cached.
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
const cacheLimitBytes = 48 * 1024 * 1024;

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

// ---------------------------------------------------------------------------------------------
// sharp in and out

/** Renders a pipeline to RGB pixels (alpha dropped). */
export const rasterOf = async (image: Sharp): Promise<Raster> => {
  const { data, info } = await image.removeAlpha().raw().toBuffer({ resolveWithObject: true });
  if (info.channels !== 3) throw new Error(`expected 3 channels, got ${info.channels}`);
  return { width: info.width, height: info.height, data: view(data) };
};

export const sharpOf = (r: Raster): Sharp => sharp(r.data, { raw: { width: r.width, height: r.height, channels: 3 } });

const through = async <T extends Raster | Plane>(img: T, channels: 1 | 3, op: (s: Sharp) => Sharp): Promise<T> => {
  const pipeline = op(sharp(img.data, { raw: { width: img.width, height: img.height, channels } }));
  // sharp writes one-channel input back out as sRGB unless told to keep the single band.
  const out = await (channels === 1 ? pipeline.extractChannel(0) : pipeline).raw().toBuffer();
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

/** Resizes to exactly width×height. `nearest` keeps hard pixel edges. */
export const resize = (r: Raster, width: number, height: number, kernel: 'nearest' | 'linear' | 'cubic'): Promise<Raster> =>
  sharp(r.data, { raw: { width: r.width, height: r.height, channels: 3 } })
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

const clampByte = (v: number) => (v <= 0 ? 0 : v >= 255 ? 255 : (v + 0.5) | 0);
const none = new Uint8ClampedArray(0);

export const look = (src: Raster, l: Look, mixWith?: { original: Raster; strength: number }): Raster => {
  const { width: w, height: h } = src;
  const out = createRaster(w, h);
  const s = src.data;
  const d = out.data;
  // Every option hoisted into a local (typed arrays, numbers): the loop below runs per pixel.
  const warp = l.warp !== undefined;
  const wx = l.warp?.fx.data ?? none;
  const wy = l.warp?.fy.data ?? none;
  const warpK = l.warp ? l.warp.amount / 128 : 0;
  const blend = l.blendTo !== undefined;
  const blendImg = l.blendTo?.image.data ?? none;
  const blendMask = l.blendTo?.mask.data ?? none;
  const hasMatrix = l.matrix !== undefined;
  const [m0, m1, m2, m3, m4, m5, m6, m7, m8] = l.matrix ?? [1, 0, 0, 0, 1, 0, 0, 0, 1];
  const [o0, o1, o2] = l.offset ?? [0, 0, 0];
  const hasOffset = l.offset !== undefined;
  const hasTone = l.tone !== undefined;
  const [ts0, ts1, ts2] = l.tone?.shadow ?? [0, 0, 0];
  const [th0, th1, th2] = l.tone?.highlight ?? [0, 0, 0];
  const sat = l.saturation ?? 1;
  const hasFlatten = l.flatten !== undefined;
  const lStep = l.flatten ? 255 / (max(2, l.flatten.levels) - 1) : 1;
  const cStep = l.flatten ? max(1, l.flatten.chroma) : 1;
  const hasMap = l.map !== undefined;
  const mapTable = l.map?.table ?? none;
  const mapK = l.map?.amount ?? 0;
  const hasPalette = l.palette !== undefined;
  const palIndex = l.palette?.index ?? new Uint8Array(0);
  const palColours = l.palette?.colours ?? none;
  const hasCurve = l.curve !== undefined;
  const [cr, cg, cb] = l.curve === undefined ? [none, none, none] : l.curve instanceof Uint8ClampedArray ? [l.curve, l.curve, l.curve] : l.curve;
  const hasScreen = l.screen !== undefined;
  const light = l.screen?.light.data ?? none;
  const scrK = l.screen ? l.screen.amount / 255 : 0;
  const hasRelief = l.relief !== undefined;
  const reliefP = l.relief?.plane.data ?? none;
  const reliefK = l.relief?.amount ?? 0;
  const overlays = (l.overlays ?? []).map((o) => {
    const flat = Array.isArray(o.colour) ? (o.colour as Rgb) : undefined;
    return {
      mask: o.mask.data,
      k: (o.opacity ?? 1) / 255,
      isFlat: flat !== undefined,
      f0: flat?.[0] ?? 0,
      f1: flat?.[1] ?? 0,
      f2: flat?.[2] ?? 0,
      image: flat ? none : (o.colour as Raster).data,
      warped: o.warped === true,
    };
  });
  const nOverlays = overlays.length;
  const hasTexture = l.texture !== undefined;
  const texP = l.texture?.plane.data ?? none;
  const texK = l.texture ? l.texture.amount / 128 : 0;
  const hasGrain = l.grain !== undefined;
  const grainP = l.grain?.plane.data ?? none;
  const grainK = l.grain?.amount ?? 0;
  const fade = mixWith !== undefined && mixWith.strength < 1;
  const orig = mixWith?.original.data ?? none;
  const t = mixWith?.strength ?? 1;

  for (let y = 0, j = 0; y < h; y++) {
    for (let x = 0; x < w; x++, j++) {
      const i = j * 3;
      let o = i;
      let jw = j;
      if (warp) {
        let sx = floor(x + (wx[j] - 128) * warpK + 0.5);
        let sy = floor(y + (wy[j] - 128) * warpK + 0.5);
        sx = sx < 0 ? 0 : sx >= w ? w - 1 : sx;
        sy = sy < 0 ? 0 : sy >= h ? h - 1 : sy;
        jw = sy * w + sx;
        o = jw * 3;
      }
      let r = s[o];
      let g = s[o + 1];
      let b = s[o + 2];
      if (blend) {
        const k = blendMask[jw] / 255;
        r += (blendImg[o] - r) * k;
        g += (blendImg[o + 1] - g) * k;
        b += (blendImg[o + 2] - b) * k;
      }
      if (hasMatrix) {
        const R = r;
        const G = g;
        const B = b;
        r = m0 * R + m1 * G + m2 * B;
        g = m3 * R + m4 * G + m5 * B;
        b = m6 * R + m7 * G + m8 * B;
      }
      if (hasOffset) {
        r += o0;
        g += o1;
        b += o2;
      }
      if (hasTone) {
        let lum = (r * 0.299 + g * 0.587 + b * 0.114) / 255;
        lum = lum < 0 ? 0 : lum > 1 ? 1 : lum;
        const ws = (1 - lum) * (1 - lum);
        const wh = lum * lum;
        r += ts0 * ws + th0 * wh;
        g += ts1 * ws + th1 * wh;
        b += ts2 * ws + th2 * wh;
      }
      if (sat !== 1) {
        const lum = r * 0.299 + g * 0.587 + b * 0.114;
        r = lum + (r - lum) * sat;
        g = lum + (g - lum) * sat;
        b = lum + (b - lum) * sat;
      }
      if (hasFlatten) {
        // Quantise brightness and the two colour differences separately: flat areas that keep their hue.
        const lum = r * 0.299 + g * 0.587 + b * 0.114;
        const lq = round(lum / lStep) * lStep;
        r = lq + round((r - lum) / cStep) * cStep;
        b = lq + round((b - lum) / cStep) * cStep;
        g = (lq - 0.299 * r - 0.114 * b) / 0.587;
      }
      if (hasMap) {
        const q = clampByte(r * 0.299 + g * 0.587 + b * 0.114) * 3;
        r += (mapTable[q] - r) * mapK;
        g += (mapTable[q + 1] - g) * mapK;
        b += (mapTable[q + 2] - b) * mapK;
      }
      if (hasPalette) {
        const q = palIndex[((clampByte(r) >> 3) << 10) | ((clampByte(g) >> 3) << 5) | (clampByte(b) >> 3)] * 3;
        r = palColours[q];
        g = palColours[q + 1];
        b = palColours[q + 2];
      }
      if (hasCurve) {
        r = cr[clampByte(r)];
        g = cg[clampByte(g)];
        b = cb[clampByte(b)];
      }
      if (hasScreen) {
        r += (255 - r) * light[i] * scrK;
        g += (255 - g) * light[i + 1] * scrK;
        b += (255 - b) * light[i + 2] * scrK;
      }
      if (hasRelief) {
        const v = (reliefP[j] - 128) * reliefK;
        r += v;
        g += v;
        b += v;
      }
      for (let k = 0; k < nOverlays; k++) {
        const ov = overlays[k];
        const a = ov.mask[ov.warped ? jw : j] * ov.k;
        if (a === 0) continue;
        if (ov.isFlat) {
          r += (ov.f0 - r) * a;
          g += (ov.f1 - g) * a;
          b += (ov.f2 - b) * a;
        } else {
          r += (ov.image[i] - r) * a;
          g += (ov.image[i + 1] - g) * a;
          b += (ov.image[i + 2] - b) * a;
        }
      }
      if (hasTexture) {
        const f = 1 + (texP[j] - 128) * texK;
        r *= f;
        g *= f;
        b *= f;
      }
      if (hasGrain) {
        const v = (grainP[j] - 128) * grainK;
        r += v;
        g += v;
        b += v;
      }
      if (fade) {
        r = orig[i] + (r - orig[i]) * t;
        g = orig[i + 1] + (g - orig[i + 1]) * t;
        b = orig[i + 2] + (b - orig[i + 2]) * t;
      }
      d[i] = r;
      d[i + 1] = g;
      d[i + 2] = b;
    }
  }
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
  const out = planeLike(parts[0][0]);
  for (let j = 0; j < out.data.length; j++) {
    let v = 128;
    for (const [p, wt] of parts) v += (p.data[j] - 128) * wt;
    out.data[j] = v;
  }
  return out;
};

/** 0 below `lo`, 255 above `hi`, smooth between: turns gradient strength into ink. */
export const ramp = (p: Plane, lo: number, hi: number): Plane => mapPlane(p, lut((v) => 255 * smoothstep(lo, hi, v)));

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
  radius < 0.5 ? p : mapPlane(await blurPlane(p, radius * 0.7), lut((v) => v * 3.2));

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

export const invertPlane = (p: Plane): Plane => mapPlane(p, lut((v) => 255 - v));

/**
 * Ben-Day dots: one dot per `cell` square (rows offset by half a cell), its area following the
 * darkness of `tone` at the dot's centre. 255 inside a dot.
 */
export const dotsMask = (tone: Plane, cell: number): Plane => {
  const c = max(3, cell);
  const { width: w, height: h } = tone;
  const out = planeLike(tone);
  for (let y = 0, j = 0; y < h; y++) {
    const row = floor(y / c);
    const shift = row % 2 === 0 ? 0 : c / 2;
    const cy = (row + 0.5) * c;
    const fy = (y - cy) / c;
    const sy = min(h - 1, round(cy)) * w;
    for (let x = 0; x < w; x++, j++) {
      const col = floor((x + shift) / c);
      const cx = (col + 0.5) * c - shift;
      const fx = (x - cx) / c;
      const darkness = 1 - tone.data[sy + min(w - 1, max(0, round(cx)))] / 255;
      const r = sqrt(darkness / PI);
      const dist = sqrt(fx * fx + fy * fy);
      out.data[j] = dist < r - 0.08 ? 255 : dist > r + 0.08 ? 0 : 255 * smoothstep(r + 0.08, r - 0.08, dist);
    }
  }
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
  memoAsync(`cloud ${width}x${height} ${scale.toFixed(2)} ${seed}`, () => {
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
