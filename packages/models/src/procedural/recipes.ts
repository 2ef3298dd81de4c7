import {
  blur,
  blurPlane,
  borderMask,
  cachedPlane,
  chain,
  cloudPlane,
  dodge,
  dotsMask,
  emboss,
  glow,
  gradient,
  grainPlane,
  GREY,
  invertPlane,
  letterbox,
  levels,
  linesMask,
  look,
  luma,
  lut,
  mapPlane,
  multiplyPlanes,
  palette,
  paperPlane,
  posterise,
  radialMask,
  ramp,
  rasterOf,
  resize,
  resizePlane,
  sCurve,
  sharpen,
  sharpOf,
  sobel,
  subtractPlanes,
  sumPlanes,
  thicken,
  type Look,
  type Plane,
  type Raster,
} from './raster';
import type { StyleRecipe } from './style-recipe';

/**
 * The look of each preset in the procedural renderer, as pixel operations on the rendered
 * picture. Distances are given for a 1024-pixel picture and scaled by `u` (shorter side / 1024),
 * so a 256² preview and a 2048² render look alike. Noise comes from seeded generators only: the
 * same request gives the same bytes.
 *
 * A recipe receives the strength (0..1] and mixes its result with the original by it (`fade`);
 * the few that change geometry (letterbox bars, pixel size) scale that with strength instead.
 */
interface Ctx {
  /** Shorter side / 1024. */
  readonly u: number;
  /** The recipe's name: seeds its noise. */
  readonly seed: string;
  /** Mix the result with the original by strength. */
  readonly fade: { readonly original: Raster; readonly strength: number };
}

type Recipe = (src: Raster, s: number, ctx: Ctx) => Raster | Promise<Raster>;

const recipe = (name: string, fn: Recipe): StyleRecipe => ({
  apply: async (image, strength) => {
    // Strength 0 is the unstyled picture, byte for byte: nothing is decoded or touched.
    if (!(strength > 0)) return image;
    const src = await rasterOf(image);
    const s = Math.min(1, strength);
    const u = Math.min(src.width, src.height) / 1024;
    return sharpOf(await fn(src, s, { u, seed: name, fade: { original: src, strength: s } }));
  },
});

/** Film grain is per pixel: weaker on small pictures, where a pixel covers more of the scene. */
const grainScale = (u: number) => Math.min(1, Math.max(0.4, Math.sqrt(u)));

interface Ink {
  /** Edge strength (Sobel, 0..255) where ink starts, and where it is full. */
  readonly from: number;
  readonly full: number;
  /** Extra line width in pixels at 1024. */
  readonly thick: number;
  /** Leave small bright details (stars, snowflakes, glints) uninked instead of blotting them. */
  readonly spareSpecks?: boolean;
  /** Soft lines may be traced at half size even when thin (pencil). */
  readonly soft?: boolean;
}

/**
 * Ink where the picture has edges (255 = full ink), from its grey. Thick or soft ink on a large
 * picture is traced at half size and scaled back: a quarter of the work, and the lines come back
 * smooth.
 */
const inkFrom = async (grey: Plane, u: number, ink: Ink): Promise<Plane> => {
  const half = u >= 0.75 && (ink.thick >= 0.8 || ink.soft === true);
  const k = half ? 0.5 : 1;
  const work = half ? resizePlane(grey, Math.round(grey.width / 2), Math.round(grey.height / 2)) : grey;
  let lines = await thicken(ramp(sobel(await blurPlane(work, 1.1 * u * k)), ink.from, ink.full), ink.thick * u * k);
  if (ink.spareSpecks) {
    const specks = await thicken(ramp(subtractPlanes(work, await blurPlane(work, 4 * u * k)), 20, 50), (ink.thick + 2) * u * k);
    lines = multiplyPlanes(lines, invertPlane(specks));
  }
  return half ? resizePlane(lines, grey.width, grey.height) : lines;
};

// ---------------------------------------------------------------------------------------------
// The five free presets: each must be recognisable on its own.

/** Lens realism: crisp centre, defocused edges, gentle contrast, natural colour, fine grain. */
const photorealistic: Recipe = async (src, _s, { u, seed, fade }) => {
  const { width: w, height: h } = src;
  const [crisp, defocused] = await Promise.all([sharpen(src, 0.35), blur(src, 7 * u)]);
  return look(
    crisp,
    {
      blendTo: { image: defocused, mask: radialMask(w, h, 0.36, 0.74, 0.56) },
      matrix: [1.02, 0, 0, 0, 1, 0, 0, 0, 0.96],
      saturation: 0.86,
      curve: sCurve(0.22),
      overlays: [{ mask: radialMask(w, h, 0.4, 1.1), colour: [0, 0, 0], opacity: 0.28 }],
      grain: { plane: grainPlane(w, h, 16, `${seed} grain`), amount: grainScale(u) },
    },
    fade,
  );
};

/** Teal shadows, orange highlights, hard contrast, vignette, widescreen bars. */
const cinematic: Recipe = (src, s, { fade }) => {
  const { width: w, height: h } = src;
  const graded = look(
    src,
    {
      tone: { shadow: [-34, 12, 44], highlight: [44, 12, -40] },
      saturation: 1.18,
      curve: sCurve(0.45),
      overlays: [{ mask: radialMask(w, h, 0.3, 1.05), colour: [0, 0, 0], opacity: 0.55 }],
    },
    fade,
  );
  // Bars grow with strength rather than fading in: half strength gives thinner bars, not grey ones.
  return letterbox(graded, 0.12 * s, [4, 5, 7]);
};

/**
 * Flat areas: smoothed first (so noise does not speckle the steps), quantised, then softened by
 * a pixel so the edges between areas come out clean and anti-aliased, like vector art.
 */
const flatAreas = async (src: Raster, u: number, colour: Look): Promise<Raster> => blur(look(await blur(src, 3 * u), colour), 0.7 * u);

/** Flat pastel shapes: smoothed, lifted, quantised into clean areas. No lines, no texture. */
const modernIllustration: Recipe = async (src, _s, { u, fade }) =>
  look(await flatAreas(src, u, { saturation: 1.6, flatten: { levels: 6, chroma: 36 }, curve: levels(92, 250, 0.85) }), {}, fade);

/** Bright flat colours in few levels, bold dark outlines. */
const cartoon: Recipe = async (src, _s, { u, fade }) => {
  const [flat, ink] = await Promise.all([
    flatAreas(src, u, { saturation: 1.8, flatten: { levels: 5, chroma: 44 }, curve: levels(10, 255, 0.8) }),
    inkFrom(luma(src), u, { from: 14, full: 40, thick: 2.4, spareSpecks: true }),
  ]);
  return look(flat, { overlays: [{ mask: ink, colour: [22, 16, 30] }] }, fade);
};

/** Soft washes that bleed past their shapes, lifted whites, pigment pooling, paper, a ragged margin. */
const watercolor: Recipe = async (src, _s, { u, seed, fade }) => {
  const { width: w, height: h } = src;
  const [soft, fx, fy, paper, ragged] = await Promise.all([
    blur(src, 3 * u),
    cloudPlane(w, h, 40 * u, `${seed} bleed x`),
    cloudPlane(w, h, 40 * u, `${seed} bleed y`),
    paperPlane(w, h, u, seed, 26, 0.6),
    cloudPlane(w, h, 60 * u, `${seed} margin`),
  ]);
  // Pigment pools where washes meet: a soft dark rim along the edges (traced at half size: it is soft anyway).
  const small = resizePlane(luma(soft), Math.ceil(w / 2), Math.ceil(h / 2));
  const pools = resizePlane(await blurPlane(ramp(sobel(small), 3, 26), 1.25 * u), w, h);
  // The paint stops short of the sheet's edge, raggedly.
  const margin = await cachedPlane(`watercolor margin ${w}x${h}`, async () =>
    ramp(
      sumPlanes([
        [borderMask(w, h, 0.12), 1],
        [ragged, 0.45],
      ]),
      180,
      214,
    ),
  );
  return look(
    soft,
    {
      warp: { fx, fy, amount: 14 * u },
      saturation: 1.0,
      curve: levels(56, 255, 0.8),
      overlays: [
        { mask: pools, colour: [40, 30, 60], opacity: 0.3, warped: true },
        { mask: margin, colour: [250, 247, 240] },
      ],
      texture: { plane: paper, amount: 0.2 },
    },
    fade,
  );
};

// ---------------------------------------------------------------------------------------------
// Photo

const filmNoir: Recipe = (src, _s, { u, seed, fade }) => {
  const { width: w, height: h } = src;
  return look(
    src,
    {
      matrix: GREY,
      curve: sCurve(0.85, 118),
      overlays: [{ mask: radialMask(w, h, 0.25, 1.0), colour: [0, 0, 0], opacity: 0.62 }],
      grain: { plane: grainPlane(w, h, 22, `${seed} grain`), amount: grainScale(u) },
    },
    fade,
  );
};

const vintagePhoto: Recipe = async (src, _s, { u, seed, fade }) => {
  const { width: w, height: h } = src;
  const [soft, paper] = await Promise.all([blur(src, 0.9 * u), paperPlane(w, h, u, seed, 12, 0.4)]);
  return look(
    soft,
    {
      matrix: [0.393, 0.769, 0.189, 0.349, 0.686, 0.168, 0.272, 0.534, 0.131],
      curve: levels(38, 232, 1.05),
      overlays: [{ mask: radialMask(w, h, 0.3, 1.0), colour: [60, 38, 20], opacity: 0.5 }],
      texture: { plane: paper, amount: 0.12 },
    },
    fade,
  );
};

const goldenHour: Recipe = async (src, _s, { u, fade }) => {
  const { width: w, height: h } = src;
  return look(
    src,
    {
      matrix: [1.12, 0.05, 0, 0.02, 1.02, 0, 0, 0, 0.8],
      offset: [10, 4, -8],
      saturation: 1.18,
      screen: { light: await glow(src, 150, 2.5, 18 * u), amount: 0.8 },
      overlays: [{ mask: radialMask(w, h, 0.4, 1.1), colour: [70, 30, 10], opacity: 0.25 }],
    },
    fade,
  );
};

const productPhotography: Recipe = async (src, _s, { fade }) => {
  const { width: w, height: h } = src;
  return look(
    await sharpen(src, 0.3),
    {
      saturation: 1.05,
      curve: chain(levels(18, 255, 0.78), sCurve(0.12)),
      overlays: [{ mask: radialMask(w, h, 0.45, 1.1), colour: [255, 255, 255], opacity: 0.35 }],
    },
    fade,
  );
};

// ---------------------------------------------------------------------------------------------
// Illustration

const anime: Recipe = async (src, _s, { u, fade }) => {
  const [flat, light, ink] = await Promise.all([
    flatAreas(src, u, { saturation: 1.4, flatten: { levels: 7, chroma: 26 }, curve: levels(20, 255, 0.9) }),
    glow(src, 170, 3, 10 * u),
    inkFrom(luma(src), u, { from: 18, full: 60, thick: 0.6 }),
  ]);
  return look(flat, { screen: { light, amount: 0.5 }, overlays: [{ mask: ink, colour: [40, 28, 48], opacity: 0.85 }] }, fade);
};

const childrensBook: Recipe = async (src, _s, { u, seed, fade }) => {
  const { width: w, height: h } = src;
  const [soft, paper, ink] = await Promise.all([
    blur(src, 2.5 * u),
    paperPlane(w, h, u, `${seed} crayon`, 34, 0.3),
    inkFrom(luma(src), u, { from: 20, full: 70, thick: 0.8 }),
  ]);
  return look(
    soft,
    {
      matrix: [1.04, 0.02, 0, 0.01, 1.0, 0, 0, 0.02, 0.9],
      offset: [8, 6, 0],
      curve: levels(45, 250, 0.85),
      overlays: [{ mask: ink, colour: [92, 60, 40], opacity: 0.55 }],
      texture: { plane: paper, amount: 0.14 },
    },
    fade,
  );
};

/** Pixels grow with strength (1 px at 0, about 11 px at 1024² at full strength). */
const pixelArt: Recipe = async (src, s, { u }) => {
  const { width: w, height: h } = src;
  const block = 1 + (Math.max(2, 10.5 * u) - 1) * s;
  const small = block < 1.5 ? src : await resize(src, Math.max(1, Math.round(w / block)), Math.max(1, Math.round(h / block)), 'linear');
  const graded = look(small, { saturation: 1 + 0.3 * s, curve: posterise(Math.round(32 - 26 * s)) }, { original: small, strength: s });
  return small === src ? graded : resize(graded, w, h, 'nearest');
};

const comicBook: Recipe = async (src, _s, { u, fade }) => {
  const [flat, ink] = await Promise.all([
    flatAreas(src, u, { saturation: 1.5, flatten: { levels: 4, chroma: 48 } }),
    inkFrom(luma(src), u, { from: 12, full: 40, thick: 1.8, spareSpecks: true }),
  ]);
  const dots = dotsMask(mapPlane(luma(flat), levels(60, 300)), 7 * u + 2);
  return look(
    flat,
    {
      overlays: [
        { mask: dots, colour: [30, 20, 40], opacity: 0.45 },
        { mask: ink, colour: [10, 8, 14] },
      ],
    },
    fade,
  );
};

// ---------------------------------------------------------------------------------------------
// Artistic

const oilPainting: Recipe = async (src, _s, { u, seed, fade }) => {
  const { width: w, height: h } = src;
  const [soft, fx, fy] = await Promise.all([
    blur(src, 2 * u),
    cloudPlane(w, h, 12 * u + 1, `${seed} stroke x`),
    cloudPlane(w, h, 12 * u + 1, `${seed} stroke y`),
  ]);
  // Impasto: light catching the ridges of the strokes.
  const ridges = emboss(
    await blurPlane(
      sumPlanes([
        [luma(soft), 0.6],
        [fx, 0.8],
      ]),
      1.2 * u,
    ),
    1.6,
    Math.round(2 * u) || 1,
  );
  return look(
    soft,
    {
      warp: { fx, fy, amount: 10 * u },
      saturation: 1.3,
      curve: chain(sCurve(0.25), posterise(24)),
      relief: { plane: ridges, amount: 0.3 },
      texture: { plane: linesMask(w, h, 5 * u + 1, 2 * u, 'grid'), amount: 0.05 },
    },
    fade,
  );
};

const impressionist: Recipe = async (src, _s, { u, seed, fade }) => {
  const { width: w, height: h } = src;
  const bx = Math.max(2, Math.round(9 * u));
  const [dabs, fx, fy] = await Promise.all([
    resize(src, Math.ceil(w / bx), Math.ceil(h / bx), 'linear').then((small) => resize(small, w, h, 'cubic')),
    cloudPlane(w, h, 5 * u + 1, `${seed} dab x`),
    cloudPlane(w, h, 5 * u + 1, `${seed} dab y`),
  ]);
  const relief = await cachedPlane(`impressionist relief ${w}x${h}`, async () =>
    emboss(
      await blurPlane(
        sumPlanes([
          [fx, 1],
          [fy, -1],
        ]),
        0.8 * u,
      ),
      1.2,
      Math.round(2 * u) || 1,
    ),
  );
  return look(
    dabs,
    {
      warp: { fx, fy, amount: 16 * u },
      tone: { shadow: [-6, 4, 22], highlight: [18, 12, -6] },
      saturation: 1.45,
      relief: { plane: relief, amount: 0.35 },
    },
    fade,
  );
};

const pencilSketch: Recipe = async (src, _s, { u, seed, fade }) => {
  const { width: w, height: h } = src;
  const grey = luma(src);
  const [negative, ink, paper] = await Promise.all([
    blurPlane(invertPlane(grey), 5 * u),
    inkFrom(grey, u, { from: 10, full: 50, thick: 0, soft: true }),
    paperPlane(w, h, u, seed, 18, 0.25),
  ]);
  const tone = dodge(grey, negative);
  // Hatching over the darker half of the picture, denser where it is darker.
  const hatch = multiplyPlanes(
    linesMask(w, h, 7 * u + 2, 1.3 * u, 'hatch'),
    mapPlane(
      grey,
      lut((v) => Math.max(0, 150 - v) * 2),
    ),
  );
  const graphite = gradient([
    [0, [60, 60, 66]],
    [1, [248, 246, 240]],
  ]);
  return look(
    { width: w, height: h, data: toRgb(tone) },
    {
      map: { table: graphite, amount: 1 },
      overlays: [
        { mask: ink, colour: [70, 70, 78], opacity: 0.65 },
        { mask: hatch, colour: [90, 90, 98], opacity: 0.45 },
      ],
      texture: { plane: paper, amount: 0.1 },
    },
    fade,
  );
};

const charcoal: Recipe = async (src, _s, { u, seed, fade }) => {
  const { width: w, height: h } = src;
  const grey = luma(src);
  const [smudge, ink, tooth] = await Promise.all([
    blurPlane(grey, 3 * u),
    inkFrom(grey, u, { from: 10, full: 40, thick: 1.5 }),
    cloudPlane(w, h, 3 * u + 1, `${seed} tooth`),
  ]);
  const paper = await cachedPlane(`charcoal paper ${w}x${h}`, async () =>
    sumPlanes([
      [grainPlane(w, h, 60, `${seed} grain`), 1],
      [tooth, 0.8],
    ]),
  );
  const sheet = gradient([
    [0, [28, 26, 26]],
    [1, [214, 206, 192]],
  ]);
  return look(
    { width: w, height: h, data: toRgb(mapPlane(smudge, sCurve(0.9, 140))) },
    {
      map: { table: sheet, amount: 1 },
      overlays: [{ mask: ink, colour: [20, 18, 18], opacity: 0.8 }],
      texture: { plane: paper, amount: 0.22 },
    },
    fade,
  );
};

const popArt: Recipe = async (src, _s, { u, fade }) => {
  const [flat, ink] = await Promise.all([
    flatAreas(src, u, { saturation: 2.2, flatten: { levels: 3, chroma: 64 } }),
    inkFrom(luma(src), u, { from: 12, full: 36, thick: 2.8, spareSpecks: true }),
  ]);
  const dots = dotsMask(mapPlane(luma(flat), levels(90, 330)), 10 * u + 2);
  return look(
    flat,
    {
      overlays: [
        { mask: dots, colour: [230, 20, 90], opacity: 0.55 },
        { mask: ink, colour: [0, 0, 0] },
      ],
    },
    fade,
  );
};

// ---------------------------------------------------------------------------------------------
// Technical

const lineArt: Recipe = async (src, _s, { u, fade }) =>
  look(
    src,
    { matrix: GREY, curve: levels(226, 255), overlays: [{ mask: await inkFrom(luma(src), u, { from: 10, full: 34, thick: 0.9 }), colour: [14, 14, 18] }] },
    fade,
  );

const blueprint: Recipe = async (src, _s, { u, seed, fade }) => {
  const { width: w, height: h } = src;
  const [ink, paper] = await Promise.all([inkFrom(luma(src), u, { from: 8, full: 32, thick: 0.9 }), paperPlane(w, h, u, seed, 8, 0.3)]);
  const paleLine: [number, number, number] = [190, 215, 240];
  return look(
    src,
    {
      map: {
        table: gradient([
          [0, [16, 58, 126]],
          [1, [40, 96, 168]],
        ]),
        amount: 1,
      },
      overlays: [
        { mask: linesMask(w, h, 32 * u + 4, u, 'grid'), colour: paleLine, opacity: 0.18 },
        { mask: linesMask(w, h, 128 * u + 16, 2 * u, 'grid'), colour: paleLine, opacity: 0.22 },
        { mask: ink, colour: [236, 244, 255] },
      ],
      texture: { plane: paper, amount: 0.06 },
    },
    fade,
  );
};

const corporate = palette([
  [38, 50, 86],
  [42, 157, 143],
  [233, 196, 106],
  [244, 162, 97],
  [231, 111, 81],
  [236, 240, 243],
  [120, 144, 168],
]);

const infographic: Recipe = async (src, _s, { u, fade }) => {
  const { width: w, height: h } = src;
  const flat = look(await blur(src, 3 * u), { palette: corporate });
  return look(
    flat,
    {
      overlays: [
        { mask: linesMask(w, h, 64 * u + 8, u, 'grid'), colour: [255, 255, 255], opacity: 0.18 },
        { mask: await inkFrom(luma(flat), u, { from: 30, full: 80, thick: 0.5 }), colour: [255, 255, 255], opacity: 0.8 },
      ],
    },
    fade,
  );
};

// ---------------------------------------------------------------------------------------------
// Fantasy

const fantasyArt: Recipe = async (src, _s, { u, fade }) => {
  const { width: w, height: h } = src;
  return look(
    src,
    {
      tone: { shadow: [18, -8, 40], highlight: [30, 22, -10] },
      saturation: 1.4,
      curve: sCurve(0.2),
      screen: { light: await glow(src, 140, 2.2, 22 * u), amount: 0.9 },
      overlays: [{ mask: radialMask(w, h, 0.3, 1.05), colour: [20, 0, 40], opacity: 0.45 }],
    },
    fade,
  );
};

const darkFantasy: Recipe = (src, _s, { u, seed, fade }) => {
  const { width: w, height: h } = src;
  return look(
    src,
    {
      saturation: 0.45,
      tone: { shadow: [-4, 4, 10], highlight: [40, -10, -20] },
      curve: chain(levels(0, 215, 1.45), sCurve(0.4)),
      overlays: [{ mask: radialMask(w, h, 0.22, 0.95), colour: [8, 0, 4], opacity: 0.7 }],
      grain: { plane: grainPlane(w, h, 14, `${seed} grain`), amount: grainScale(u) },
    },
    fade,
  );
};

const ethereal: Recipe = async (src, _s, { u, fade }) => {
  const { width: w, height: h } = src;
  return look(
    src,
    {
      tone: { shadow: [10, 4, 26], highlight: [18, 6, 20] },
      saturation: 0.75,
      curve: levels(80, 255, 0.8),
      screen: { light: await blur(src, 14 * u), amount: 0.6 },
      overlays: [{ mask: radialMask(w, h, 0.45, 1.1), colour: [255, 245, 255], opacity: 0.35 }],
    },
    fade,
  );
};

const synthwave: Recipe = async (src, _s, { u, fade }) => {
  const { width: w, height: h } = src;
  const ink = await inkFrom(luma(src), u, { from: 12, full: 40, thick: 0.8 });
  const neonGlow = await blurPlane(ink, 5 * u);
  return look(
    src,
    {
      saturation: 1.5,
      map: {
        table: gradient([
          [0, [22, 4, 52]],
          [0.3, [110, 22, 140]],
          [0.55, [255, 42, 109]],
          [0.8, [255, 158, 61]],
          [1, [255, 243, 176]],
        ]),
        amount: 0.8,
      },
      overlays: [
        { mask: neonGlow, colour: [0, 240, 255], opacity: 0.55 },
        { mask: ink, colour: [180, 255, 255], opacity: 0.8 },
        { mask: linesMask(w, h, 4 * u + 2, 1.2 * u, 'rows'), colour: [10, 0, 20], opacity: 0.3 },
      ],
    },
    fade,
  );
};

// ---------------------------------------------------------------------------------------------
// General

const minimalist: Recipe = async (src, _s, { u, fade }) =>
  look(await blur(src, 8 * u), { saturation: 0.75, flatten: { levels: 4, chroma: 60 }, curve: levels(70, 240, 0.9) }, fade);

const neon: Recipe = async (src, _s, { u, fade }) => {
  const vivid = look(src, { saturation: 2.4, curve: levels(40, 255, 0.8) });
  const ink = await inkFrom(luma(src), u, { from: 10, full: 36, thick: 0.7 });
  const halo = mapPlane(
    await blurPlane(ink, 7 * u),
    lut((v) => v * 2.2),
  );
  return look(
    src,
    {
      curve: levels(0, 40, 1.2),
      overlays: [
        { mask: halo, colour: vivid, opacity: 0.7 },
        { mask: ink, colour: vivid },
      ],
    },
    fade,
  );
};

const render3d: Recipe = async (src, _s, { u, fade }) => {
  const smooth = await blur(src, 3 * u);
  // Brightness as height: a soft top-left light over rounded forms.
  const height = await blurPlane(luma(smooth), 10 * u);
  return look(
    smooth,
    {
      saturation: 0.85,
      curve: levels(30, 250, 0.9),
      screen: { light: await glow(smooth, 200, 4, 4 * u), amount: 0.5 },
      relief: { plane: emboss(height, 3.5, Math.round(6 * u) || 1), amount: 0.6 },
      overlays: [{ mask: radialMask(src.width, src.height, 0.35, 1.0), colour: [20, 20, 30], opacity: 0.35 }],
    },
    fade,
  );
};

/** A grey plane as RGB (for recipes that work in grey and colour at the end). */
const toRgb = (p: Plane): Uint8ClampedArray => {
  const out = new Uint8ClampedArray(p.data.length * 3);
  for (let j = 0, i = 0; j < p.data.length; j++, i += 3) out[i] = out[i + 1] = out[i + 2] = p.data[j];
  return out;
};

// ---------------------------------------------------------------------------------------------

const table: ReadonlyArray<readonly [string, Recipe]> = [
  ['photorealistic', photorealistic],
  ['cinematic', cinematic],
  ['modern-illustration', modernIllustration],
  ['cartoon', cartoon],
  ['watercolor', watercolor],
  ['film-noir', filmNoir],
  ['vintage-photo', vintagePhoto],
  ['golden-hour', goldenHour],
  ['product-photography', productPhotography],
  ['anime', anime],
  ['childrens-book', childrensBook],
  ['pixel-art', pixelArt],
  ['comic-book', comicBook],
  ['oil-painting', oilPainting],
  ['pencil-sketch', pencilSketch],
  ['impressionist', impressionist],
  ['charcoal', charcoal],
  ['pop-art', popArt],
  ['line-art', lineArt],
  ['blueprint', blueprint],
  ['infographic', infographic],
  ['fantasy-art', fantasyArt],
  ['dark-fantasy', darkFantasy],
  ['ethereal', ethereal],
  ['synthwave', synthwave],
  ['minimalist', minimalist],
  ['neon', neon],
  ['3d-render', render3d],
];

/** Preset id → recipe. Ids match `STYLE_PRESETS` in @promptpix/core; the tests check both ways. */
export const STYLE_RECIPES: ReadonlyMap<string, StyleRecipe> = new Map(table.map(([id, fn]) => [id, recipe(id, fn)]));
