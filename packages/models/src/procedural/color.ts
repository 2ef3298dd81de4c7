/** A colour as hue (degrees), saturation and lightness (0–100). */
export interface Hsl {
  readonly h: number;
  readonly s: number;
  readonly l: number;
}

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));
const wrapHue = (h: number) => ((h % 360) + 360) % 360;

export const hsl = (h: number, s: number, l: number): Hsl => ({ h: wrapHue(h), s: clamp(s, 0, 100), l: clamp(l, 0, 100) });

/** Adds to each component (hue wraps, the others clamp). */
export const shift = (c: Hsl, d: { h?: number; s?: number; l?: number }): Hsl => hsl(c.h + (d.h ?? 0), c.s + (d.s ?? 0), c.l + (d.l ?? 0));

const toRgb = (c: Hsl): [number, number, number] => {
  const s = c.s / 100;
  const l = c.l / 100;
  const a = s * Math.min(l, 1 - l);
  const channel = (n: number) => {
    const k = (n + c.h / 30) % 12;
    return l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1));
  };
  return [channel(0), channel(8), channel(4)];
};

const fromRgb = ([r, g, b]: [number, number, number]): Hsl => {
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  const l = (max + min) / 2;
  const d = max - min;
  if (d === 0) return hsl(0, 0, l * 100);
  const s = d / (1 - Math.abs(2 * l - 1));
  const h = max === r ? ((g - b) / d) % 6 : max === g ? (b - r) / d + 2 : (r - g) / d + 4;
  return hsl(h * 60, s * 100, l * 100);
};

/** Moves `a` towards `b` by `t` (0..1) around the colour wheel: keeps mid-tones vivid (sky gradients). */
export const sweep = (a: Hsl, b: Hsl, t: number): Hsl => {
  const dh = ((b.h - a.h + 540) % 360) - 180;
  return hsl(a.h + dh * t, a.s + (b.s - a.s) * t, a.l + (b.l - a.l) * t);
};

/** Moves `a` towards `b` by `t` (0..1), blending as light does (in RGB). */
export const mix = (a: Hsl, b: Hsl, t: number): Hsl => {
  const [x, y] = [toRgb(a), toRgb(b)];
  return fromRgb([x[0] + (y[0] - x[0]) * t, x[1] + (y[1] - x[1]) * t, x[2] + (y[2] - x[2]) * t]);
};

export const toHex = (c: Hsl): string =>
  `#${toRgb(c)
    .map((v) =>
      Math.round(v * 255)
        .toString(16)
        .padStart(2, '0'),
    )
    .join('')}`;
