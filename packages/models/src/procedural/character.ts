import { loadSharp } from '../sharp';
import type { CharacterReferenceInput, ModelImage, ReferencePreparation } from '@promptpix/core';
import { hash32 } from './prng';

type Rgb = [number, number, number];

const hex = ([r, g, b]: Rgb) => `#${[r, g, b].map((v) => Math.round(v).toString(16).padStart(2, '0')).join('')}`;
const saturation = ([r, g, b]: Rgb) => Math.max(r, g, b) - Math.min(r, g, b);
const distance = (a: Rgb, b: Rgb) => Math.abs(a[0] - b[0]) + Math.abs(a[1] - b[1]) + Math.abs(a[2] - b[2]);

/** Three colours that stand for the character: the most saturated distinct colours of its references, or from its spec sheet's words. */
export async function characterPalette(character: CharacterReferenceInput): Promise<[string, string, string]> {
  const colours: Rgb[] = [];
  for (const image of character.images.slice(0, 4)) {
    const { data } = await loadSharp()(image, { failOn: 'error' }).removeAlpha().resize(4, 4, { fit: 'cover' }).raw().toBuffer({ resolveWithObject: true });
    for (let i = 0; i + 2 < data.length; i += 3) colours.push([data[i], data[i + 1], data[i + 2]]);
  }
  if (colours.length === 0) {
    const words = (character.specSheet ?? character.name).toLowerCase().match(/[a-z]+/g) ?? ['character'];
    for (const word of words) {
      const h = hash32(word);
      colours.push([(h & 0xff) | 0x40, ((h >> 8) & 0xff) | 0x20, (h >> 16) & 0xff]);
    }
  }
  const chosen: Rgb[] = [];
  for (const c of [...colours].sort((a, b) => saturation(b) - saturation(a))) {
    if (chosen.every((o) => distance(o, c) > 60)) chosen.push(c);
    if (chosen.length === 3) break;
  }
  while (chosen.length < 3) chosen.push(chosen.length ? (chosen[0].map((v) => 255 - v) as Rgb) : [200, 80, 60]);
  return [hex(chosen[0]), hex(chosen[1]), hex(chosen[2])];
}

/**
 * A figure in the character's colours, standing in the foreground: an SVG the size of the scene,
 * composited over it. Where it stands depends on the seed, so scenes vary.
 */
export function characterFigureSvg(palette: [string, string, string], width: number, height: number, seed: number): string {
  const unit = (Math.min(width, height) / 100) * 1.3;
  const cx = width * (0.3 + ((seed >>> 3) % 40) / 100);
  const ground = height * 0.94;
  const bodyH = 38 * unit;
  const headR = 9 * unit;
  const [body, accent, detail] = palette;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">
  <ellipse cx="${cx}" cy="${ground}" rx="${16 * unit}" ry="${3 * unit}" fill="#000" fill-opacity="0.25"/>
  <rect x="${cx - 7 * unit}" y="${ground - 16 * unit}" width="${5 * unit}" height="${16 * unit}" rx="${2 * unit}" fill="${detail}"/>
  <rect x="${cx + 2 * unit}" y="${ground - 16 * unit}" width="${5 * unit}" height="${16 * unit}" rx="${2 * unit}" fill="${detail}"/>
  <path d="M ${cx - 12 * unit} ${ground - 14 * unit} Q ${cx} ${ground - bodyH - 4 * unit} ${cx + 12 * unit} ${ground - 14 * unit} Z" fill="${body}" stroke="#111" stroke-opacity="0.5" stroke-width="${0.6 * unit}"/>
  <rect x="${cx - 17 * unit}" y="${ground - 30 * unit}" width="${6 * unit}" height="${16 * unit}" rx="${3 * unit}" fill="${accent}" transform="rotate(18 ${cx - 14 * unit} ${ground - 30 * unit})"/>
  <rect x="${cx + 11 * unit}" y="${ground - 30 * unit}" width="${6 * unit}" height="${16 * unit}" rx="${3 * unit}" fill="${accent}" transform="rotate(-18 ${cx + 14 * unit} ${ground - 30 * unit})"/>
  <circle cx="${cx}" cy="${ground - bodyH - 2 * unit}" r="${headR}" fill="${accent}" stroke="#111" stroke-opacity="0.5" stroke-width="${0.6 * unit}"/>
  <circle cx="${cx - 3.2 * unit}" cy="${ground - bodyH - 3 * unit}" r="${1.4 * unit}" fill="#111"/>
  <circle cx="${cx + 3.2 * unit}" cy="${ground - bodyH - 3 * unit}" r="${1.4 * unit}" fill="#111"/>
  <path d="M ${cx - 3 * unit} ${ground - bodyH + 2 * unit} Q ${cx} ${ground - bodyH + 4 * unit} ${cx + 3 * unit} ${ground - bodyH + 2 * unit}" stroke="#111" stroke-width="${0.8 * unit}" fill="none"/>
  <rect x="${cx - 5 * unit}" y="${ground - 28 * unit}" width="${10 * unit}" height="${4 * unit}" rx="${1 * unit}" fill="${detail}"/>
</svg>`;
}

/** Representative look of each visual family, applied to the figure when a reference is prepared. */
const FAMILY_TINT: Record<string, { modulate: { saturation: number; brightness: number }; blur?: number; posterize?: boolean }> = {
  photographic: { modulate: { saturation: 0.85, brightness: 1.0 } },
  illustration: { modulate: { saturation: 1.5, brightness: 1.05 }, posterize: true },
  painterly: { modulate: { saturation: 0.9, brightness: 1.1 }, blur: 2 },
  sketch: { modulate: { saturation: 0.1, brightness: 1.15 } },
  '3d': { modulate: { saturation: 1.2, brightness: 1.0 }, blur: 0.6 },
  pixel: { modulate: { saturation: 1.3, brightness: 1.0 }, posterize: true },
  technical: { modulate: { saturation: 0.3, brightness: 1.1 } },
  fantasy: { modulate: { saturation: 1.4, brightness: 0.95 } },
};

/**
 * Prepares a character's reference for a visual family: its figure in its own colours, rendered
 * in the family's look (the procedural stand-in for an image-to-image pass of a real model).
 */
export async function prepareProceduralReference(input: ReferencePreparation): Promise<ModelImage> {
  const size = 512;
  const palette = await characterPalette(input.character);
  const svg = characterFigureSvg(palette, size, size, input.seed);
  const look = FAMILY_TINT[input.family] ?? FAMILY_TINT.photographic;
  let image = loadSharp()({ create: { width: size, height: size, channels: 3, background: '#f4f1ea' } })
    .composite([{ input: Buffer.from(svg) }])
    .png();
  let data = await image.toBuffer();
  image = loadSharp()(data).modulate(look.modulate);
  if (look.blur) image = image.blur(look.blur);
  if (look.posterize) image = image.png({ palette: true, colours: 12 });
  data = await image.png().toBuffer();
  return { data, width: size, height: size };
}
