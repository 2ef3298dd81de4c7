import { circlePath, linePath, n, polygonPath, smoothPath, verticalGradient, type Canvas, type Point } from './canvas';
import { hsl, mix, shift, toHex, type Hsl } from './color';
import type { Terrain, TimeOfDay } from './lexicon';
import type { Rng } from './prng';

/** The top edge of a painted layer: things can stand on it. */
export interface Ridge {
  readonly kind: Terrain;
  /** 0 far .. 1 near. */
  readonly depth: number;
  yAt(x: number): number;
}

export interface LayerSpec {
  readonly kind: Terrain;
  /** 0 far .. 1 near. */
  readonly depth: number;
  /** Where the layer's top edge sits on average. */
  readonly baseY: number;
  readonly colour: Hsl;
  readonly accent: Hsl;
  readonly time: TimeOfDay;
  readonly snowCaps: boolean;
}

interface Ctx {
  readonly canvas: Canvas;
  readonly rng: Rng;
  /** One unit is a thousandth of the picture's shorter side. */
  readonly u: number;
}

const ridgeFrom = (kind: Terrain, depth: number, points: readonly Point[]): Ridge => ({
  kind,
  depth,
  yAt: (x) => {
    const step = points[1][0] - points[0][0];
    const i = Math.max(0, Math.min(points.length - 2, Math.floor((x - points[0][0]) / step)));
    const [x0, y0] = points[i];
    const [x1, y1] = points[i + 1];
    return y0 + ((y1 - y0) * (x - x0)) / (x1 - x0);
  },
});

/** A layer's fill: its colour, a little lighter along the top edge, darker towards the bottom. */
const layerFill = (ctx: Ctx, spec: LayerSpec, top: number) =>
  verticalGradient(ctx.canvas, top, ctx.canvas.height, [
    [0, toHex(shift(spec.colour, { l: 6 }))],
    [1, toHex(shift(spec.colour, { l: -10 - 8 * spec.depth, s: 5 }))],
  ]);

const closeBelow = (ctx: Ctx, edge: string, first: Point, last: Point) =>
  `M${n(first[0])} ${n(ctx.canvas.height)}${edge}L${n(last[0])} ${n(ctx.canvas.height)}Z`;

/** Sine-sum ridge sampled across a little more than the width (so edges never show). */
const sineRidge = (ctx: Ctx, spec: LayerSpec, amp: number, cycles: [number, number], segments: number, rough: number): Point[] => {
  const { rng, canvas } = ctx;
  const w = canvas.width;
  const waves = [0.6, 0.3, 0.15].map((weight, i) => ({
    weight,
    freq: ((Math.PI * 2) / w) * rng.range(cycles[0], cycles[1]) * (1 + i * 1.7),
    phase: rng.range(0, Math.PI * 2),
  }));
  const points: Point[] = [];
  for (let i = 0; i <= segments; i++) {
    const x = -w * 0.05 + (w * 1.1 * i) / segments;
    const y = waves.reduce((acc, s) => acc + s.weight * Math.sin(x * s.freq + s.phase), 0);
    points.push([x, spec.baseY + amp * (y + rough * rng.range(-0.5, 0.5))]);
  }
  return points;
};

const hills = (ctx: Ctx, spec: LayerSpec): Ridge => {
  const amp = ctx.u * ctx.rng.range(35, 85) * (1.2 - 0.4 * spec.depth);
  const points = sineRidge(ctx, spec, amp, [0.5, 1.5], 16, 0.2);
  ctx.canvas.add(`<path d="${closeBelow(ctx, smoothPath(points), points[0], points[points.length - 1])}" fill="${layerFill(ctx, spec, spec.baseY - amp)}"/>`);
  return ridgeFrom('hills', spec.depth, points);
};

const dunes = (ctx: Ctx, spec: LayerSpec): Ridge => {
  const amp = ctx.u * ctx.rng.range(30, 60);
  const points = sineRidge(ctx, spec, amp, [0.4, 1.0], 14, 0);
  const edge = smoothPath(points);
  ctx.canvas.add(`<path d="${closeBelow(ctx, edge, points[0], points[points.length - 1])}" fill="${layerFill(ctx, spec, spec.baseY - amp)}"/>`);
  const crest = toHex(shift(spec.colour, { l: 14 }));
  ctx.canvas.add(`<path d="M${edge.slice(1)}" fill="none" stroke="${crest}" stroke-opacity="0.6" stroke-width="${n(ctx.u * 3)}"/>`);
  return ridgeFrom('dunes', spec.depth, points);
};

const mountains = (ctx: Ctx, spec: LayerSpec): Ridge => {
  const { rng, canvas, u } = ctx;
  const size = 32;
  const amp = u * rng.range(120, 220) * (1.1 - 0.5 * spec.depth);
  const ys = new Array<number>(size + 1).fill(0);
  ys[0] = rng.range(-0.3, 0.3);
  ys[size] = rng.range(-0.3, 0.3);
  for (let step = size; step > 1; step /= 2) {
    const spread = (step / size) ** 0.7;
    for (let i = step / 2; i < size; i += step) ys[i] = (ys[i - step / 2] + ys[i + step / 2]) / 2 + rng.range(-1, 1) * spread * 1.4;
  }
  const top = spec.baseY - amp;
  const points: Point[] = ys.map((y, i) => [-canvas.width * 0.05 + (canvas.width * 1.1 * i) / size, spec.baseY - amp * 0.5 + y * amp * 0.7]);
  canvas.add(`<path d="${closeBelow(ctx, linePath(points), points[0], points[points.length - 1])}" fill="${layerFill(ctx, spec, top)}"/>`);
  if (spec.snowCaps) {
    // Everything above a snow line, with a ragged lower edge (teeth stay inside the rock).
    const ysOnScreen = points.map((p) => p[1]);
    const [highest, lowest] = [Math.min(...ysOnScreen), Math.max(...ysOnScreen)];
    const line = highest + (lowest - highest) * rng.range(0.25, 0.45);
    const tooth = u * 10;
    const cross = (a: Point, b: Point): Point => [a[0] + ((line - a[1]) / (b[1] - a[1])) * (b[0] - a[0]), line];
    const caps: string[] = [];
    let run: Point[] = [];
    const close = () => {
      const back: Point[] = [];
      for (let x = run[run.length - 1][0] - tooth, k = 0; x > run[0][0]; x -= tooth, k++)
        back.push([x, line + (k % 2 === 0 ? tooth * rng.range(0.4, 1.2) : 0)]);
      caps.push(polygonPath([...run, ...back]));
      run = [];
    };
    points.forEach((p, i) => {
      if (p[1] < line) {
        if (run.length === 0 && i > 0) run.push(cross(points[i - 1], p));
        run.push(p);
      } else if (run.length) {
        run.push(cross(points[i - 1], p));
        close();
      }
    });
    if (run.length) close();
    const snow = toHex(mix(spec.colour, hsl(205, 35, 97), 0.8));
    if (caps.length) canvas.add(`<path d="${caps.join('')}" fill="${snow}" fill-opacity="0.92"/>`);
  }
  return ridgeFrom('mountains', spec.depth, points);
};

const waves = (ctx: Ctx, spec: LayerSpec): Ridge => {
  const { canvas, u } = ctx;
  const amp = u * ctx.rng.range(6, 16) * (0.5 + spec.depth);
  const points = sineRidge(ctx, spec, amp, [3, 6], 48, 0.3);
  const edge = smoothPath(points);
  canvas.add(`<path d="${closeBelow(ctx, edge, points[0], points[points.length - 1])}" fill="${layerFill(ctx, spec, spec.baseY - amp)}"/>`);
  const foam = toHex(shift(spec.colour, { l: 30, s: -20 }));
  canvas.add(`<path d="M${edge.slice(1)}" fill="none" stroke="${foam}" stroke-opacity="0.55" stroke-width="${n(u * (1.5 + 2 * spec.depth))}"/>`);
  const glints: string[] = [];
  for (let i = 0; i < 14; i++) {
    const x = ctx.rng.range(0, canvas.width);
    const y = spec.baseY + ctx.rng.range(amp, amp * 6 + u * 30);
    const len = u * ctx.rng.range(15, 60);
    glints.push(`M${n(x)} ${n(y)}h${n(len)}`);
  }
  canvas.add(`<path d="${glints.join('')}" stroke="${foam}" stroke-opacity="0.3" stroke-linecap="round" stroke-width="${n(u * 2)}"/>`);
  return ridgeFrom('waves', spec.depth, points);
};

const city = (ctx: Ctx, spec: LayerSpec): Ridge => {
  const { rng, canvas, u } = ctx;
  const buildings: string[] = [];
  const windows: string[] = [];
  const lit = spec.time !== 'day';
  const scale = 0.6 + 0.6 * spec.depth;
  for (let x = -u * 10; x < canvas.width; ) {
    const bw = u * rng.range(40, 110) * scale;
    const bh = u * rng.range(80, 320) * scale;
    const top = spec.baseY - bh;
    buildings.push(`M${n(x)} ${n(canvas.height)}V${n(top)}H${n(x + bw)}V${n(canvas.height)}Z`);
    if (rng.chance(0.25)) buildings.push(`M${n(x + bw * 0.45)} ${n(top)}v${n(-u * 30 * scale)}h${n(u * 3)}v${n(u * 30 * scale)}Z`);
    if (spec.depth > 0.3) {
      const cell = u * 14 * scale;
      for (let wy = top + cell; wy < spec.baseY - cell; wy += cell * 1.6) {
        for (let wx = x + cell * 0.6; wx < x + bw - cell; wx += cell * 1.4) {
          if (rng.chance(lit ? 0.45 : 0.3)) windows.push(`M${n(wx)} ${n(wy)}h${n(cell * 0.7)}v${n(cell * 0.9)}h${n(-cell * 0.7)}Z`);
        }
      }
    }
    x += bw + u * rng.range(0, 12);
  }
  canvas.add(`<path d="${buildings.join('')}" fill="${layerFill(ctx, spec, spec.baseY - u * 320 * scale)}"/>`);
  if (windows.length) {
    const colour = lit ? toHex(spec.accent) : toHex(shift(spec.colour, { l: 22 }));
    canvas.add(`<path d="${windows.join('')}" fill="${colour}" fill-opacity="${lit ? 0.85 : 0.5}"/>`);
  }
  canvas.add(
    `<rect x="0" y="${n(spec.baseY)}" width="${canvas.width}" height="${n(canvas.height - spec.baseY)}" fill="${toHex(shift(spec.colour, { l: -8 }))}"/>`,
  );
  return ridgeFrom('city', spec.depth, [
    [0, spec.baseY],
    [canvas.width, spec.baseY],
  ]);
};

const painters: Record<LayerSpec['kind'], (ctx: Ctx, spec: LayerSpec) => Ridge> = { hills, dunes, mountains, waves, city };

export const paintLayer = (canvas: Canvas, rng: Rng, spec: LayerSpec): Ridge =>
  painters[spec.kind]({ canvas, rng, u: Math.min(canvas.width, canvas.height) / 1000 }, spec);

/** Trees along a ridge: pines or round crowns, smaller on far layers. */
export const paintTrees = (canvas: Canvas, rng: Rng, ridge: Ridge, colour: Hsl, count: number): void => {
  const u = Math.min(canvas.width, canvas.height) / 1000;
  const pines = rng.chance(0.6);
  const shapes: string[] = [];
  const trunks: string[] = [];
  const xs = Array.from({ length: count }, () => rng.range(0, canvas.width)).sort((a, b) => a - b);
  for (const x of xs) {
    const h = u * rng.range(45, 110) * (0.5 + 0.8 * ridge.depth);
    const y = ridge.yAt(x) + h * 0.08;
    if (pines) {
      for (let k = 0; k < 3; k++) {
        const tipY = y - h * (1 - k * 0.22);
        const baseY = y - h * (0.45 - k * 0.2);
        const half = h * (0.2 + k * 0.07);
        shapes.push(
          polygonPath([
            [x, tipY],
            [x + half, baseY],
            [x - half, baseY],
          ]),
        );
      }
      trunks.push(`M${n(x - h * 0.03)} ${n(y - h * 0.1)}h${n(h * 0.06)}v${n(h * 0.2)}h${n(-h * 0.06)}Z`);
    } else {
      const r = h * 0.3;
      shapes.push(circlePath(x, y - h + r, r), circlePath(x - r * 0.6, y - h + r * 1.6, r * 0.75), circlePath(x + r * 0.6, y - h + r * 1.6, r * 0.75));
      trunks.push(`M${n(x - h * 0.04)} ${n(y - h * 0.35)}h${n(h * 0.08)}v${n(h * 0.4)}h${n(-h * 0.08)}Z`);
    }
  }
  canvas.add(`<path d="${trunks.join('')}" fill="${toHex(hsl(25, 35, Math.min(colour.l, 30) * 0.8))}"/>`);
  canvas.add(`<path d="${shapes.join('')}" fill="${toHex(colour)}"/>`);
};
