import { n, type Canvas } from './canvas';
import { hsl, toHex, type Hsl } from './color';
import type { Icon } from './icons';
import type { TimeOfDay } from './lexicon';
import type { Palette } from './plan';
import type { Rng } from './prng';
import type { Subject } from './subjects';
import type { Ridge } from './terrain';

/** Where one copy of a subject stands: centre x, the y of its feet, its height, and paint order. */
export interface Placement {
  readonly subject: number;
  readonly x: number;
  readonly baseY: number;
  readonly size: number;
  readonly order: number;
  /** Casts a shadow on the ground (not when it sits on another subject). */
  readonly grounded: boolean;
}

export interface Stage {
  readonly width: number;
  readonly height: number;
  /** Terrain layers, far to near; empty in open sky. */
  readonly ridges: readonly Ridge[];
}

/**
 * Lays out subjects with simple depth: the free ones share the front ground (the main one largest,
 * in the middle), their copies stagger backwards (higher and smaller); a subject related to
 * another is placed by it ("on" sits on top, "under" below, "in front of" nearer and later,
 * "behind" farther and earlier), and one "on" a setting word stands on the highest point of the
 * middle terrain. Placement depends on the picture's proportions and `rng` only.
 */
export const placeSubjects = (subjects: readonly Subject[], rng: Rng, stage: Stage): Placement[] => {
  const { width: w, height: h, ridges } = stage;
  const unit = Math.min(w, h);
  const nearest = ridges[ridges.length - 1];
  const groundAt = (x: number, size: number) => Math.min(h - size * 0.04, nearest ? nearest.yAt(x) + size * rng.range(0.06, 0.16) : h * 0.82);
  const targetOf = (s: Subject) =>
    typeof s.relation?.to === 'number' && !(typeof subjects[s.relation.to].relation?.to === 'number') ? s.relation.to : undefined;

  const placements: Placement[] = [];
  const first = new Map<number, Placement>();
  const free = subjects.map((s, i) => [s, i] as const).filter(([s]) => targetOf(s) === undefined);
  const add = (subject: number, count: number, x: number, baseY: number, size: number, order: number, grounded: boolean) => {
    for (let j = 0; j < count; j++) {
      // Copies alternate left and right of the first, each a step farther back.
      const step = Math.ceil(j / 2) * (j % 2 === 1 ? 1 : -1);
      const back = Math.abs(step);
      const s = size * 0.82 ** back;
      const cx = Math.min(w - s * 0.3, Math.max(s * 0.3, x + step * size * 0.72));
      const p = { subject, x: cx, baseY: baseY - back * size * 0.12, size: s, order: order - back, grounded };
      placements.push(p);
      if (j === 0) first.set(subject, p);
    }
  };

  free.forEach(([s, i], k) => {
    const shrink = 1 / Math.sqrt(Math.max(1, s.count * 0.6));
    if (typeof s.relation?.to === 'string' && ridges.length > 0) {
      // On the cliff, hill or beach: the highest point of the middle terrain near the centre.
      const ridge = ridges[Math.min(1, ridges.length - 1)];
      let [bestX, bestY] = [w / 2, Number.POSITIVE_INFINITY];
      for (let t = 0; t <= 24; t++) {
        const x = w * (0.22 + (0.56 * t) / 24);
        const y = ridge.yAt(x);
        if (y < bestY) [bestX, bestY] = [x, y];
      }
      const size = unit * rng.range(0.4, 0.48) * shrink;
      add(i, s.count, bestX, bestY + size * 0.05, size, bestY, false);
      return;
    }
    const slot = free.length === 1 ? 0.5 : 0.18 + (0.64 * k) / (free.length - 1);
    const x = w * (slot + rng.range(-0.05, 0.05));
    const size = unit * (k === 0 ? rng.range(0.4, 0.48) : rng.range(0.3, 0.38)) * shrink * (free.length > 2 ? 0.8 : 1);
    const baseY = groundAt(x, size);
    add(i, s.count, x, baseY, size, baseY, true);
  });

  subjects.forEach((s, i) => {
    const to = targetOf(s);
    if (to === undefined) return;
    const t = first.get(to);
    if (!t) return;
    const side = rng.chance(0.5) ? 1 : -1;
    switch (s.relation!.kind) {
      case 'on':
        add(i, s.count, t.x, t.baseY - t.size * 0.8, t.size * 0.5, t.order + 0.5, false);
        return;
      case 'under':
        add(i, s.count, t.x, t.baseY, t.size * 0.42, t.order + 0.5, true);
        return;
      case 'in front of':
        add(i, s.count, t.x + side * t.size * 0.22, Math.min(h, t.baseY + t.size * 0.16), t.size * 0.85, t.order + 1, true);
        return;
      case 'behind':
        add(i, s.count, t.x + side * t.size * 0.3, t.baseY - t.size * 0.16, t.size * 0.72, t.order - 1, true);
        return;
      case 'beside': {
        const x = t.x + side * t.size * 0.95;
        const inside = x > t.size * 0.3 && x < w - t.size * 0.3 ? x : t.x - side * t.size * 0.95;
        add(i, s.count, inside, t.baseY, t.size * 0.8, t.order, true);
        return;
      }
    }
  });
  return placements.sort((a, b) => a.order - b.order);
};

// ---------------------------------------------------------------------------------------------
// Colour

const hexColour = /#([0-9a-f]{6}|[0-9a-f]{3})\b/gi;

const hueOfHex = (hex: string): { h: number; s: number } | undefined => {
  const full = hex.length === 3 ? [...hex].map((c) => c + c).join('') : hex;
  const [r, g, b] = [0, 2, 4].map((i) => Number.parseInt(full.slice(i, i + 2), 16) / 255);
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  const d = max - min;
  const l = (max + min) / 2;
  if (d < 0.08) return undefined;
  const s = d / (1 - Math.abs(2 * l - 1));
  const h = max === r ? ((g - b) / d) % 6 : max === g ? (b - r) / d + 2 : (r - g) / d + 4;
  return { h: (h * 60 + 360) % 360, s };
};

/** The icon's main hue: the fullest of twelve 30° bins over its colours (undefined if grey). */
export const dominantHue = (body: string): number | undefined => {
  const bins = new Array<number>(12).fill(0);
  for (const [, hex] of body.matchAll(hexColour)) {
    const c = hueOfHex(hex);
    if (c && c.s > 0.25) bins[Math.floor(c.h / 30) % 12] += c.s;
  }
  const best = bins.indexOf(Math.max(...bins));
  return bins[best] > 0 ? best * 30 + 15 : undefined;
};

const matrix = (rows: readonly number[]) => `<feColorMatrix type="matrix" values="${rows.map((v) => (Math.round(v * 1000) / 1000).toString()).join(' ')}"/>`;
const grey = (amount: number) => {
  // Luma weights; amount 1 is fully grey.
  const [r, g, b] = [0.2126, 0.7152, 0.0722];
  const k = 1 - amount;
  return [r + k * (1 - r), g - k * g, b - k * b, 0, 0, r - k * r, g + k * (1 - g), b - k * b, 0, 0, r - k * r, g - k * g, b + k * (1 - b), 0, 0, 0, 0, 0, 1, 0];
};
/** RGB scaled by k and lifted towards `c` by 1 − k. */
const towards = (c: Hsl, k: number, lift = 1 - k) => {
  const hex = toHex(c);
  const [r, g, b] = [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16) / 255);
  return [k, 0, 0, 0, r * lift, 0, k, 0, 0, g * lift, 0, 0, k, 0, b * lift, 0, 0, 0, 1, 0];
};

/** The filter steps that recolour an icon to the subject's colour and light it for the time of day. */
const filterSteps = (subject: Subject, body: string, palette: Palette, time: TimeOfDay): string => {
  const steps: string[] = [];
  const colour = subject.colour;
  if (colour && 'hue' in colour) {
    const from = dominantHue(body);
    if (from === undefined) steps.push(matrix(towards(hsl(colour.hue, 80, 50), 0.45)));
    else steps.push(`<feColorMatrix type="hueRotate" values="${Math.round(colour.hue - from)}"/>`, `<feColorMatrix type="saturate" values="1.25"/>`);
  } else if (colour && 'tone' in colour) {
    if (colour.tone === 'black') steps.push(matrix(grey(0.85)), matrix(towards(hsl(0, 0, 8), 0.35)));
    if (colour.tone === 'white') steps.push(matrix(grey(0.9)), matrix(towards(hsl(0, 0, 97), 0.45)));
    if (colour.tone === 'grey') steps.push(matrix(grey(1)));
    if (colour.tone === 'brown') steps.push(matrix(grey(0.7)), matrix(towards(hsl(28, 55, 32), 0.6, 0.5)));
  }
  // Dusk and night: the subject takes the sky's shadow, as the creatures do.
  if (time !== 'day') steps.push(matrix(towards(hsl(palette.skyTop.h, 35, 14), time === 'dusk' ? 0.62 : 0.42)));
  return steps.join('');
};

/** Gives the icon's ids (gradients, clip paths) a prefix, so two copies in one picture do not collide. */
const scopeIds = (body: string, prefix: string) =>
  body
    .replace(/\bid="([^"]+)"/g, `id="${prefix}$1"`)
    .replace(/url\(#([^)]+)\)/g, `url(#${prefix}$1)`)
    .replace(/href="#([^"]+)"/g, `href="#${prefix}$1"`);

/** Paints the placed subjects: a contact shadow, then the icon, recoloured and lit for the scene. */
export const paintSubjects = (
  canvas: Canvas,
  subjects: readonly Subject[],
  placements: readonly Placement[],
  icons: ReadonlyMap<number, Icon>,
  palette: Palette,
  time: TimeOfDay,
): void => {
  const filters = new Map<number, string>();
  placements.forEach((p, k) => {
    const icon = icons.get(p.subject);
    if (!icon) return;
    const subject = subjects[p.subject];
    if (!filters.has(p.subject)) {
      const steps = filterSteps(subject, icon.body, palette, time);
      filters.set(p.subject, steps ? canvas.define((id) => `<filter id="${id}" color-interpolation-filters="sRGB">${steps}</filter>`) : '');
    }
    const filter = filters.get(p.subject)!;
    if (p.grounded)
      canvas.add(`<ellipse cx="${n(p.x)}" cy="${n(p.baseY)}" rx="${n(p.size * 0.34)}" ry="${n(p.size * 0.045)}" fill="#000" fill-opacity="0.22"/>`);
    const aspect = icon.width / icon.height;
    const [bw, bh] = aspect >= 1 ? [p.size, p.size / aspect] : [p.size * aspect, p.size];
    canvas.add(
      `<g${filter ? ` filter="${filter}"` : ''}><svg x="${n(p.x - bw / 2)}" y="${n(p.baseY - bh)}" width="${n(bw)}" height="${n(bh)}" viewBox="0 0 ${icon.width} ${icon.height}">${scopeIds(icon.body, `s${k}_`)}</svg></g>`,
    );
  });
};
