/**
 * The built-in model's pictures in the docs, made by the model itself (deterministic: the same
 * code gives the same files):
 * - docs/images/generated.png: the README's first image, "a lighthouse on a cliff at sunset",
 *   watercolor, seed 2026, 512².
 * - docs/images/procedural-subjects.png: the contact sheet of docs/backends/procedural.md, twelve
 *   prompts in two styles, 256² each, seed 1: six prompts a row, watercolor above cartoon.
 *
 *   npx tsx scripts/procedural-pictures.ts
 */
import { join } from 'node:path';
import { createProceduralModel, loadSharp } from '@promptpix/models';

const SHEET_PROMPTS = [
  'a lighthouse on a cliff at sunset',
  'three red cats in the rain',
  'a puppy in a flower meadow',
  'a chef cooking in a kitchen',
  'an automobile on a mountain road',
  'a castle on a hill at night',
  'an astronaut in space',
  'a turtle underwater',
  'a sailboat on the ocean at dawn',
  'a dog in front of a house',
  'a slice of pizza on a plate',
  'a beacon tower in the snow',
];
const SHEET_STYLES = ['watercolor', 'cartoon'];

const CELL = 256;
const COLUMNS = 6;
const DOCS = join(__dirname, '../docs/images');

async function main() {
  const model = createProceduralModel();
  const sharp = loadSharp();
  const readme = await model.generate({ prompt: 'a lighthouse on a cliff at sunset', style: 'watercolor', strength: 1, seed: 2026, width: 512, height: 512 });
  await sharp(readme.data).png({ palette: true, compressionLevel: 9 }).toFile(join(DOCS, 'generated.png'));
  console.log(`generated.png: ${readme.revisedPrompt}`);

  // Six prompts a row, each row of prompts once per style: watercolor above, cartoon below.
  const cells: Array<{ input: Buffer; left: number; top: number }> = [];
  for (const [i, prompt] of SHEET_PROMPTS.entries()) {
    for (const [s, style] of SHEET_STYLES.entries()) {
      const image = await model.generate({ prompt, style, strength: 1, seed: 1, width: CELL, height: CELL });
      cells.push({ input: image.data, left: (i % COLUMNS) * CELL, top: (Math.floor(i / COLUMNS) * SHEET_STYLES.length + s) * CELL });
      if (s === 0) console.log(`${i + 1}. ${prompt} → ${image.revisedPrompt}`);
    }
  }
  const rows = Math.ceil(SHEET_PROMPTS.length / COLUMNS) * SHEET_STYLES.length;
  await sharp({ create: { width: CELL * COLUMNS, height: CELL * rows, channels: 3, background: '#ffffff' } })
    .composite(cells)
    .png({ palette: true, compressionLevel: 9 })
    .toFile(join(DOCS, 'procedural-subjects.png'));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
