import { circlePath, linearGradient, n, polygonPath, radialGradient, verticalGradient, type Canvas, type Point } from './canvas';
import { hsl, mix, shift, toHex, type Hsl } from './color';
import type { TimeOfDay } from './lexicon';
import type { Palette, WordShape } from './plan';
import type { Rng } from './prng';
import type { Ridge } from './terrain';

const unit = (canvas: Canvas) => Math.min(canvas.width, canvas.height) / 1000;

export const paintSky = (canvas: Canvas, palette: Palette, horizonY: number): void => {
  const fill = verticalGradient(canvas, 0, horizonY, [
    [0, toHex(palette.skyTop)],
    [0.55, toHex(palette.skyMid)],
    [1, toHex(palette.skyHorizon)],
  ]);
  canvas.add(`<rect width="${canvas.width}" height="${canvas.height}" fill="${fill}"/>`);
};

/** A warm glow sitting on the horizon, behind everything else (dusk). */
export const paintHorizonGlow = (canvas: Canvas, rng: Rng, palette: Palette, horizonY: number): void => {
  const r = Math.max(canvas.width, canvas.height) * 0.6;
  const fill = radialGradient(canvas, rng.range(0.2, 0.8) * canvas.width, horizonY, r, [
    [0, toHex(shift(palette.skyHorizon, { l: 15 })), 0.7],
    [1, toHex(palette.skyHorizon), 0],
  ]);
  canvas.add(`<rect width="${canvas.width}" height="${n(horizonY)}" fill="${fill}"/>`);
};

export const paintStars = (canvas: Canvas, rng: Rng, horizonY: number): void => {
  const u = unit(canvas);
  const buckets = [[], [], []] as string[][];
  const count = rng.int(70, 150);
  for (let i = 0; i < count; i++) {
    const y = horizonY * rng.next() ** 1.4;
    buckets[rng.int(0, 2)].push(circlePath(rng.range(0, canvas.width), y, u * rng.range(0.8, 2.4)));
  }
  buckets.forEach((d, i) => {
    canvas.add(`<path d="${d.join('')}" fill="#fffbea" fill-opacity="${(0.35 + i * 0.3).toFixed(2)}"/>`);
  });
  const sparkles: string[] = [];
  for (let i = rng.int(3, 7); i > 0; i--) {
    const [x, y, s] = [rng.range(0, canvas.width), rng.range(0, horizonY * 0.7), u * rng.range(6, 12)];
    sparkles.push(
      polygonPath([
        [x, y - s],
        [x + s * 0.18, y - s * 0.18],
        [x + s, y],
        [x + s * 0.18, y + s * 0.18],
        [x, y + s],
        [x - s * 0.18, y + s * 0.18],
        [x - s, y],
        [x - s * 0.18, y - s * 0.18],
      ]),
    );
  }
  canvas.add(`<path d="${sparkles.join('')}" fill="#ffffff" fill-opacity="0.9"/>`);
};

export const paintSun = (canvas: Canvas, rng: Rng, palette: Palette, time: TimeOfDay, horizonY: number): void => {
  const u = unit(canvas);
  const r = u * rng.range(40, 85);
  const x = rng.range(0.15, 0.85) * canvas.width;
  const y = time === 'dusk' ? horizonY - rng.range(-0.2, 1.2) * r : horizonY * rng.range(0.15, 0.45);
  const light = toHex(palette.light);
  const reach = r * (time === 'dusk' ? 7 : 5);
  const glow = radialGradient(canvas, x, y, reach, [
    [0, light, 0.65],
    [0.2, light, 0.3],
    [1, light, 0],
  ]);
  canvas.add(`<circle cx="${n(x)}" cy="${n(y)}" r="${n(reach)}" fill="${glow}"/>`);
  const disk =
    time === 'dusk'
      ? verticalGradient(canvas, y - r, y + r, [
          [0, toHex(shift(palette.light, { l: 12 }))],
          [1, toHex(mix(palette.light, palette.accent, 0.6))],
        ])
      : light;
  canvas.add(`<circle cx="${n(x)}" cy="${n(y)}" r="${n(r)}" fill="${disk}"/>`);
};

export const paintMoon = (canvas: Canvas, rng: Rng, palette: Palette, horizonY: number): void => {
  const u = unit(canvas);
  const r = u * rng.range(30, 65);
  const [x, y] = [rng.range(0.15, 0.85) * canvas.width, horizonY * rng.range(0.15, 0.5)];
  const light = toHex(palette.light);
  const glow = radialGradient(canvas, x, y, r * 3.5, [
    [0, light, 0.35],
    [1, light, 0],
  ]);
  canvas.add(`<circle cx="${n(x)}" cy="${n(y)}" r="${n(r * 3.5)}" fill="${glow}"/><circle cx="${n(x)}" cy="${n(y)}" r="${n(r)}" fill="${light}"/>`);
  const craters: string[] = [];
  for (let i = rng.int(3, 6); i > 0; i--) {
    const [a, d] = [rng.range(0, Math.PI * 2), rng.range(0, 0.6) * r];
    craters.push(circlePath(x + Math.cos(a) * d, y + Math.sin(a) * d, r * rng.range(0.08, 0.22)));
  }
  canvas.add(`<path d="${craters.join('')}" fill="${toHex(shift(palette.light, { l: -25, s: -10 }))}" fill-opacity="0.35"/>`);
};

export const paintPlanets = (canvas: Canvas, rng: Rng, palette: Palette): void => {
  const u = unit(canvas);
  for (let i = rng.int(1, 3); i > 0; i--) {
    const r = u * rng.range(30, 150);
    const [x, y] = [rng.range(0.1, 0.9) * canvas.width, rng.range(0.1, 0.8) * canvas.height];
    const base = rng.chance(0.5) ? palette.accent : hsl(rng.range(0, 360), rng.range(40, 75), rng.range(45, 60));
    const fill = radialGradient(
      canvas,
      x,
      y,
      r * 1.3,
      [
        [0, toHex(shift(base, { l: 25 }))],
        [0.6, toHex(base)],
        [1, toHex(shift(base, { l: -35 }))],
      ],
      [x - r * 0.45, y - r * 0.45],
    );
    canvas.add(`<circle cx="${n(x)}" cy="${n(y)}" r="${n(r)}" fill="${fill}"/>`);
    if (rng.chance(0.45)) {
      canvas.add(
        `<ellipse cx="${n(x)}" cy="${n(y)}" rx="${n(r * 1.8)}" ry="${n(r * 0.45)}" transform="rotate(${n(rng.range(-30, 30))} ${n(x)} ${n(y)})" fill="none" stroke="${toHex(shift(base, { l: 20, h: 30 }))}" stroke-opacity="0.75" stroke-width="${n(r * 0.12)}"/>`,
      );
    }
  }
};

export const paintClouds = (canvas: Canvas, rng: Rng, palette: Palette, time: TimeOfDay, horizonY: number, stormy: boolean): void => {
  const u = unit(canvas);
  const white = stormy ? hsl(215, 10, 62) : hsl(0, 0, 99);
  const colour = toHex(mix(white, palette.skyHorizon, time === 'day' ? 0.15 : 0.5));
  const clouds: string[] = [];
  for (let c = stormy ? rng.int(5, 8) : rng.int(2, 5); c > 0; c--) {
    const width = u * rng.range(160, 360);
    const [x0, base] = [rng.range(-0.1, 0.9) * canvas.width, horizonY * rng.range(0.12, stormy ? 0.5 : 0.7)];
    const puffs = rng.int(4, 7);
    for (let i = 0; i < puffs; i++) {
      const t = (i + 0.5) / puffs;
      const r = width * rng.range(0.12, 0.22) * (1 - Math.abs(t - 0.5));
      clouds.push(circlePath(x0 + t * width, base - r * 0.6, r * 1.6));
    }
    clouds.push(`M${n(x0)} ${n(base)}h${n(width)}v${n(-width * 0.06)}h${n(-width)}Z`);
  }
  canvas.add(`<path d="${clouds.join('')}" fill="${colour}" fill-opacity="${stormy ? 0.9 : 0.85}"/>`);
};

export const paintBirds = (canvas: Canvas, rng: Rng, palette: Palette, horizonY: number): void => {
  const u = unit(canvas);
  const [cx, cy] = [rng.range(0.2, 0.8) * canvas.width, horizonY * rng.range(0.15, 0.5)];
  const d: string[] = [];
  for (let i = rng.int(3, 9); i > 0; i--) {
    const [x, y, w] = [cx + rng.range(-150, 150) * u, cy + rng.range(-60, 60) * u, u * rng.range(8, 18)];
    d.push(
      `M${n(x - w)} ${n(y - w * 0.3)}Q${n(x - w * 0.5)} ${n(y - w * 0.7)} ${n(x)} ${n(y)}Q${n(x + w * 0.5)} ${n(y - w * 0.7)} ${n(x + w)} ${n(y - w * 0.3)}`,
    );
  }
  canvas.add(`<path d="${d.join('')}" fill="none" stroke="${toHex(hsl(palette.skyTop.h, 30, 15))}" stroke-width="${n(u * 2.5)}" stroke-linecap="round"/>`);
};

const wordColour = (hue: number, time: TimeOfDay) => hsl(hue, 70, time === 'night' ? 45 : time === 'dusk' ? 55 : 60);

/** The shapes an unknown word leaves behind, in the sky (all kinds but `scatter`). */
export const paintWordShape = (canvas: Canvas, rng: Rng, shape: WordShape, time: TimeOfDay, horizonY: number): void => {
  const u = unit(canvas);
  const c = wordColour(shape.hue, time);
  const [cx, cy] = [rng.range(0.1, 0.9) * canvas.width, horizonY * rng.range(0.15, 0.85)];
  switch (shape.kind) {
    case 'orbs': {
      const fill = canvas.define(
        (id) =>
          `<radialGradient id="${id}" cx="0.5" cy="0.5" r="0.5" fx="0.35" fy="0.35"><stop offset="0" stop-color="${toHex(shift(c, { l: 25 }))}"/><stop offset="1" stop-color="${toHex(shift(c, { l: -10 }))}"/></radialGradient>`,
      );
      for (let i = rng.int(3, 6); i > 0; i--) {
        canvas.add(
          `<circle cx="${n(cx + rng.range(-250, 250) * u)}" cy="${n(cy + rng.range(-120, 120) * u)}" r="${n(u * rng.range(15, 80))}" fill="${fill}" fill-opacity="0.8"/>`,
        );
      }
      return;
    }
    case 'shard': {
      const r = u * rng.range(90, 230);
      const sides = rng.int(3, 6);
      const a0 = rng.range(0, Math.PI * 2);
      const points = Array.from({ length: sides }, (_, i): Point => {
        const a = a0 + (i / sides) * Math.PI * 2 + rng.range(-0.3, 0.3);
        const d = r * rng.range(0.6, 1);
        return [cx + Math.cos(a) * d, cy + Math.sin(a) * d];
      });
      const fill = linearGradient(
        canvas,
        [cx - r, cy - r],
        [cx + r, cy + r],
        [
          [0, toHex(shift(c, { l: 15 }))],
          [1, toHex(shift(c, { h: 40, l: -10 }))],
        ],
      );
      canvas.add(`<path d="${polygonPath(points)}" fill="${fill}" fill-opacity="0.65"/>`);
      return;
    }
    case 'stripes': {
      const angle = rng.range(-60, 60);
      const span = Math.hypot(canvas.width, canvas.height);
      const bands: string[] = [];
      let y = cy - u * rng.range(100, 250);
      for (let i = rng.int(4, 8); i > 0; i--) {
        const w = u * rng.range(10, 40);
        bands.push(`M${n(cx - span)} ${n(y)}h${n(span * 2)}v${n(w)}h${n(-span * 2)}Z`);
        y += w + u * rng.range(15, 60);
      }
      canvas.add(`<path d="${bands.join('')}" transform="rotate(${n(angle)} ${n(cx)} ${n(cy)})" fill="${toHex(c)}" fill-opacity="0.28"/>`);
      return;
    }
    case 'ring': {
      const r = u * rng.range(60, 200);
      canvas.add(
        `<circle cx="${n(cx)}" cy="${n(cy)}" r="${n(r)}" fill="none" stroke="${toHex(c)}" stroke-opacity="0.75" stroke-width="${n(u * rng.range(8, 25))}"/>`,
      );
      if (rng.chance(0.5))
        canvas.add(
          `<circle cx="${n(cx)}" cy="${n(cy)}" r="${n(r * 0.7)}" fill="none" stroke="${toHex(shift(c, { h: 30, l: 10 }))}" stroke-opacity="0.6" stroke-width="${n(u * 6)}"/>`,
        );
      return;
    }
    case 'arcs': {
      const r0 = u * rng.range(150, 350);
      const w = u * rng.range(12, 28);
      for (let i = 0; i < 5; i++) {
        const r = r0 + i * w;
        canvas.add(
          `<path d="M${n(cx - r)} ${n(horizonY)}A${n(r)} ${n(r)} 0 0 1 ${n(cx + r)} ${n(horizonY)}" fill="none" stroke="${toHex(shift(c, { h: i * 28 }))}" stroke-opacity="0.5" stroke-width="${n(w)}"/>`,
        );
      }
      return;
    }
    case 'scatter':
      return;
  }
};

/** `scatter` words: small diamonds and triangles over the whole picture, in front. */
export const paintScatter = (canvas: Canvas, rng: Rng, shape: WordShape, time: TimeOfDay): void => {
  const u = unit(canvas);
  const d: string[] = [];
  for (let i = rng.int(25, 50); i > 0; i--) {
    const [x, y, s] = [rng.range(0, canvas.width), rng.range(0, canvas.height), u * rng.range(5, 16)];
    d.push(
      rng.chance(0.5)
        ? polygonPath([
            [x, y - s],
            [x + s * 0.6, y],
            [x, y + s],
            [x - s * 0.6, y],
          ])
        : polygonPath([
            [x, y - s],
            [x + s, y + s * 0.7],
            [x - s, y + s * 0.7],
          ]),
    );
  }
  canvas.add(`<path d="${d.join('')}" fill="${toHex(shift(wordColour(shape.hue, time), { l: 10 }))}" fill-opacity="0.8"/>`);
};

export const paintFlowers = (canvas: Canvas, rng: Rng, ridge: Ridge | undefined, palette: Palette): void => {
  const u = unit(canvas);
  const petals: [string[], string[]] = [[], []];
  const hearts: string[] = [];
  const stems: string[] = [];
  for (let i = rng.int(25, 45); i > 0; i--) {
    const x = rng.range(0, canvas.width);
    const top = ridge ? ridge.yAt(x) : canvas.height * 0.7;
    const y = top + (canvas.height - top) * rng.range(0.1, 0.9);
    const r = u * rng.range(6, 13) * (0.6 + (y - top) / (canvas.height - top + 1));
    stems.push(`M${n(x)} ${n(y)}v${n(r * 4)}`);
    const bucket = petals[rng.int(0, 1)];
    for (let k = 0; k < 5; k++) {
      const a = (k / 5) * Math.PI * 2;
      bucket.push(circlePath(x + Math.cos(a) * r, y + Math.sin(a) * r, r * 0.65));
    }
    hearts.push(circlePath(x, y, r * 0.45));
  }
  canvas.add(`<path d="${stems.join('')}" stroke="${toHex(hsl(110, 45, 30))}" stroke-width="${n(u * 2.5)}"/>`);
  canvas.add(`<path d="${petals[0].join('')}" fill="${toHex(palette.accent)}"/>`);
  canvas.add(`<path d="${petals[1].join('')}" fill="${toHex(shift(palette.accent, { h: 45, l: 12 }))}"/>`);
  canvas.add(`<path d="${hearts.join('')}" fill="#ffd84a"/>`);
};

export type Creature = 'cat' | 'dog' | 'robot';

/** Each creature is drawn in a 100×100 box, feet on the bottom edge; B = body, E = eyes, A = accent. */
const creatureMarkup: Record<Creature, string> = {
  cat:
    '<path d="M74 92C96 90 98 62 84 56" fill="none" stroke="B" stroke-width="7" stroke-linecap="round"/>' +
    '<ellipse cx="50" cy="70" rx="26" ry="30" fill="B"/><circle cx="50" cy="33" r="18" fill="B"/>' +
    '<path d="M35 24L32 3L48 16ZM65 24L68 3L52 16Z" fill="B"/>' +
    '<ellipse cx="43" cy="32" rx="2.8" ry="4" fill="E"/><ellipse cx="57" cy="32" rx="2.8" ry="4" fill="E"/>',
  dog:
    '<path d="M72 88C88 86 92 72 96 62" fill="none" stroke="B" stroke-width="6" stroke-linecap="round"/>' +
    '<ellipse cx="50" cy="70" rx="24" ry="30" fill="B"/><circle cx="50" cy="31" r="16" fill="B"/>' +
    '<ellipse cx="50" cy="41" rx="10" ry="7" fill="B"/>' +
    '<ellipse cx="34" cy="33" rx="6" ry="14" transform="rotate(18 34 33)" fill="B"/><ellipse cx="66" cy="33" rx="6" ry="14" transform="rotate(-18 66 33)" fill="B"/>' +
    '<rect x="37" y="47" width="26" height="4" rx="2" fill="A"/>' +
    '<circle cx="44" cy="28" r="2.4" fill="E"/><circle cx="56" cy="28" r="2.4" fill="E"/><ellipse cx="50" cy="39" rx="3" ry="2.2" fill="E"/>',
  robot:
    '<path d="M38 82h8v18h-8ZM54 82h8v18h-8Z" fill="B"/>' +
    '<rect x="17" y="48" width="9" height="28" rx="4" fill="B"/><rect x="74" y="48" width="9" height="28" rx="4" fill="B"/>' +
    '<rect x="27" y="44" width="46" height="40" rx="6" fill="B"/><rect x="32" y="14" width="36" height="27" rx="7" fill="B"/>' +
    '<path d="M49 14V5h2v9Z" fill="B"/><circle cx="50" cy="4" r="3.5" fill="A"/>' +
    '<circle cx="42" cy="27" r="4.5" fill="A"/><circle cx="58" cy="27" r="4.5" fill="A"/>' +
    '<rect x="40" y="56" width="20" height="13" rx="2" fill="A" fill-opacity="0.6"/><rect x="42" y="34" width="16" height="2.5" fill="A" fill-opacity="0.7"/>',
};

const creatureColour: Record<Creature, Hsl> = { cat: hsl(28, 60, 45), dog: hsl(30, 40, 36), robot: hsl(210, 12, 62) };

export const paintCreature = (canvas: Canvas, kind: Creature, x: number, baseY: number, height: number, palette: Palette, time: TimeOfDay): void => {
  const shadow = hsl(palette.skyTop.h, 30, 9);
  const body = mix(creatureColour[kind], shadow, time === 'day' ? 0 : time === 'dusk' ? 0.7 : 0.85);
  const eyes = time === 'day' ? '#1a1a1a' : toHex(palette.accent);
  const s = height / 100;
  const markup = creatureMarkup[kind]
    .replaceAll('"B"', `"${toHex(body)}"`)
    .replaceAll('"E"', `"${eyes}"`)
    .replaceAll('"A"', `"${toHex(palette.accent)}"`);
  canvas.add(`<ellipse cx="${n(x)}" cy="${n(baseY)}" rx="${n(height * 0.32)}" ry="${n(height * 0.04)}" fill="#000" fill-opacity="0.25"/>`);
  canvas.add(`<g transform="translate(${n(x - 50 * s)} ${n(baseY - 100 * s)}) scale(${s.toFixed(4)})">${markup}</g>`);
};

export const paintSnow = (canvas: Canvas, rng: Rng): void => {
  const u = unit(canvas);
  const buckets: [string[], string[]] = [[], []];
  for (let i = rng.int(90, 160); i > 0; i--) {
    buckets[rng.int(0, 1)].push(circlePath(rng.range(0, canvas.width), rng.range(0, canvas.height), u * rng.range(1.5, 5)));
  }
  canvas.add(`<path d="${buckets[0].join('')}" fill="#ffffff" fill-opacity="0.55"/><path d="${buckets[1].join('')}" fill="#ffffff" fill-opacity="0.9"/>`);
};

export const paintRain = (canvas: Canvas, rng: Rng): void => {
  const u = unit(canvas);
  const slant = rng.range(-0.35, 0.1);
  const d: string[] = [];
  for (let i = rng.int(100, 160); i > 0; i--) {
    const len = u * rng.range(25, 60);
    d.push(`M${n(rng.range(-0.1, 1.1) * canvas.width)} ${n(rng.range(0, canvas.height))}l${n(len * slant)} ${n(len)}`);
  }
  canvas.add(`<path d="${d.join('')}" stroke="#d6e4f0" stroke-opacity="0.4" stroke-width="${n(u * 1.6)}" stroke-linecap="round"/>`);
};

export const paintEmbers = (canvas: Canvas, rng: Rng, palette: Palette): void => {
  const u = unit(canvas);
  const [sparks, hot, glow]: string[][] = [[], [], []];
  for (let i = rng.int(50, 110); i > 0; i--) {
    const [x, y, r] = [rng.range(0, canvas.width), canvas.height * (1 - 0.75 * rng.next() ** 1.5), u * rng.range(1.5, 5)];
    (rng.chance(0.5) ? sparks : hot).push(circlePath(x, y, r));
    if (rng.chance(0.3)) glow.push(circlePath(x, y, r * 4));
  }
  canvas.add(`<path d="${glow.join('')}" fill="${toHex(palette.accent)}" fill-opacity="0.15"/>`);
  canvas.add(`<path d="${sparks.join('')}" fill="${toHex(palette.accent)}" fill-opacity="0.9"/>`);
  canvas.add(`<path d="${hot.join('')}" fill="#fff1a8" fill-opacity="0.9"/>`);
};

/** Haze between layers: the colour of the horizon, thickening downwards. */
export const paintHaze = (canvas: Canvas, palette: Palette, fromY: number, toY: number, strength: number): void => {
  const fill = verticalGradient(canvas, fromY, toY, [
    [0, toHex(palette.skyHorizon), 0],
    [1, toHex(palette.skyHorizon), strength],
  ]);
  canvas.add(`<rect y="${n(fromY)}" width="${canvas.width}" height="${n(canvas.height - fromY)}" fill="${fill}"/>`);
};
