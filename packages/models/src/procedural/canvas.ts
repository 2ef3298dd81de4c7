/** Rounds to 0.1 px: short markup, and the same text on every machine. */
export const n = (v: number): string => (Math.round(v * 10) / 10).toString();

export type Point = readonly [number, number];

/** What a painted element belongs to: the backdrop (sky, ground) or what stands in front of it. */
export type Layer = 'sky' | 'ground' | 'subject';

/** An SVG document under construction: shared definitions (gradients) plus painted layers. */
export interface Canvas {
  readonly width: number;
  readonly height: number;
  /** Paints `markup` on top of what is there, in the current layer. */
  add(markup: string): void;
  /** Registers a definition built around a fresh id; returns `url(#id)`. */
  define(build: (id: string) => string): string;
  /** Runs `paint` with what it adds marked as `layer` (the rest is `subject`). */
  within(layer: Exclude<Layer, 'subject'>, paint: () => void): void;
  /** Whether anything was painted in `layer`. */
  has(layer: Layer): boolean;
  /** The document; `omit` leaves out the elements of those layers (their place stays transparent). */
  toSvg(omit?: ReadonlySet<Layer>): string;
}

export const createCanvas = (width: number, height: number): Canvas => {
  const defs: string[] = [];
  const body: Array<{ markup: string; layer: Layer }> = [];
  let current: Layer = 'subject';
  return {
    width,
    height,
    add: (markup) => body.push({ markup, layer: current }),
    define: (build) => {
      const id = `d${defs.length}`;
      defs.push(build(id));
      return `url(#${id})`;
    },
    within: (layer, paint) => {
      const outer = current;
      current = layer;
      try {
        paint();
      } finally {
        current = outer;
      }
    },
    has: (layer) => body.some((entry) => entry.layer === layer),
    toSvg: (omit) =>
      `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">` +
      `<defs>${defs.join('')}</defs>${body
        .filter((entry) => !omit?.has(entry.layer))
        .map((entry) => entry.markup)
        .join('')}</svg>`,
  };
};

/** A gradient's colour stops: [offset 0..1, colour, opacity]. */
export type Stops = ReadonlyArray<readonly [number, string, number?]>;

const stopMarkup = (stops: Stops) =>
  stops
    .map(
      ([offset, colour, opacity]) =>
        `<stop offset="${n(offset * 100)}%" stop-color="${colour}"${opacity === undefined ? '' : ` stop-opacity="${opacity.toFixed(3)}"`}/>`,
    )
    .join('');

/** A top-to-bottom gradient in user space between y1 and y2. */
export const verticalGradient = (canvas: Canvas, y1: number, y2: number, stops: Stops): string =>
  canvas.define(
    (id) => `<linearGradient id="${id}" gradientUnits="userSpaceOnUse" x1="0" y1="${n(y1)}" x2="0" y2="${n(y2)}">${stopMarkup(stops)}</linearGradient>`,
  );

export const linearGradient = (canvas: Canvas, from: Point, to: Point, stops: Stops): string =>
  canvas.define(
    (id) =>
      `<linearGradient id="${id}" gradientUnits="userSpaceOnUse" x1="${n(from[0])}" y1="${n(from[1])}" x2="${n(to[0])}" y2="${n(to[1])}">${stopMarkup(stops)}</linearGradient>`,
  );

export const radialGradient = (canvas: Canvas, cx: number, cy: number, r: number, stops: Stops, focus?: Point): string =>
  canvas.define(
    (id) =>
      `<radialGradient id="${id}" gradientUnits="userSpaceOnUse" cx="${n(cx)}" cy="${n(cy)}" r="${n(r)}"` +
      (focus ? ` fx="${n(focus[0])}" fy="${n(focus[1])}"` : '') +
      `>${stopMarkup(stops)}</radialGradient>`,
  );

/** A circle as a sub-path, so many dots can share one `<path>` element (much cheaper to render). */
export const circlePath = (cx: number, cy: number, r: number): string =>
  `M${n(cx - r)} ${n(cy)}a${n(r)} ${n(r)} 0 1 0 ${n(2 * r)} 0a${n(r)} ${n(r)} 0 1 0 ${n(-2 * r)} 0Z`;

export const polygonPath = (points: readonly Point[]): string => `M${points.map(([x, y]) => `${n(x)} ${n(y)}`).join('L')}Z`;

/** Straight segments through `points`, continuing the current path. */
export const linePath = (points: readonly Point[]): string => points.map(([x, y]) => `L${n(x)} ${n(y)}`).join('');

/** A smooth curve through `points` (quadratic segments via the midpoints). */
export const smoothPath = (points: readonly Point[]): string => {
  let d = `L${n(points[0][0])} ${n(points[0][1])}`;
  for (let i = 1; i < points.length - 1; i++) {
    const [x, y] = points[i];
    const [nx, ny] = points[i + 1];
    d += `Q${n(x)} ${n(y)} ${n((x + nx) / 2)} ${n((y + ny) / 2)}`;
  }
  const last = points[points.length - 1];
  return `${d}L${n(last[0])} ${n(last[1])}`;
};
