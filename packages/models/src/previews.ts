import { createHash } from 'node:crypto';
import { loadSharp } from './sharp';
import type { ImageModel } from '@promptpix/core';
import type { Storage } from '@promptpix/core';

/** Side of the square preview images, in pixels. */
export const PREVIEW_SIZE = 512;
/** Every preview is drawn with this seed: the same preset always gets the same picture. */
export const PREVIEW_SEED = 1_000_003;
/**
 * Part of every preview's key. Bump it when the look of the presets changes (recipes, sample
 * prompts, preview size or encoding), so that stored previews are drawn again on the next start.
 */
export const PREVIEW_RENDERER_VERSION = 1;

/**
 * One sample prompt per category, so a category's previews compare like with like. Worded from
 * the procedural model's vocabulary, so its previews show a clean scene.
 */
export const PREVIEW_PROMPTS: Readonly<Record<string, string>> = {
  photo: 'sunset over the ocean and mountains',
  illustration: 'a dog in the forest at sunset',
  artistic: 'snowy mountains by the lake at dawn',
  technical: 'a robot in the city at night',
  fantasy: 'a dragon over a volcano at dusk',
  general: 'a cat in a flower meadow at sunset',
};
const DEFAULT_PROMPT = PREVIEW_PROMPTS.general;

/** What the previewer needs to know of a preset (a `StylePreset` fits). */
export interface PreviewablePreset {
  readonly id: string;
  readonly promptTemplate?: string;
  /** Picks the sample prompt; presets without one get the general prompt. */
  readonly category?: string;
}

export interface StylePreviewerDeps {
  model: ImageModel;
  storage: Storage;
  log?: (message: string) => void;
  /** How many previews are drawn at once. Default 2. */
  concurrency?: number;
}

export interface StylePreviewer {
  /**
   * Makes sure every preset has a stored preview and answers preset id → public URL. Previews
   * already stored (same key) are not drawn again, so a restart costs only existence checks.
   * A preview that fails to draw or store is logged and left out; the others still come back.
   */
  ensurePreviews(presets: readonly PreviewablePreset[]): Promise<Record<string, string>>;
}

export const previewPromptFor = (preset: PreviewablePreset): string =>
  preset.category !== undefined && Object.hasOwn(PREVIEW_PROMPTS, preset.category) ? PREVIEW_PROMPTS[preset.category] : DEFAULT_PROMPT;

/**
 * `previews/<id>-<hash>.webp`, the hash covering everything that decides the picture: preset id,
 * sample prompt, prompt template, model name and renderer version. A change to any of them gives
 * a new key (a fresh preview) and leaves the old object alone.
 */
export const previewKeyFor = (preset: PreviewablePreset, modelName: string): string => {
  const hash = createHash('sha256')
    .update(JSON.stringify([preset.id, previewPromptFor(preset), preset.promptTemplate ?? null, modelName, PREVIEW_RENDERER_VERSION, PREVIEW_SIZE]))
    .digest('hex')
    .slice(0, 12);
  return `previews/${preset.id}-${hash}.webp`;
};

/** Preset ids become part of object keys: only slugs are accepted. */
const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** Runs `work` over `items`, at most `limit` at a time. */
const eachLimited = async <T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> => {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane));
};

export const createStylePreviewer = (d: StylePreviewerDeps): StylePreviewer => {
  const log = d.log ?? (() => undefined);
  const concurrency = d.concurrency ?? 2;

  const draw = async (preset: PreviewablePreset, key: string): Promise<void> => {
    const image = await d.model.generate({
      prompt: previewPromptFor(preset),
      style: preset.id,
      promptTemplate: preset.promptTemplate,
      strength: 1,
      seed: PREVIEW_SEED,
      width: PREVIEW_SIZE,
      height: PREVIEW_SIZE,
    });
    const webp = await loadSharp()(image.data, { failOn: 'error' })
      .resize(PREVIEW_SIZE, PREVIEW_SIZE, { fit: 'cover', position: 'attention' })
      .webp({ quality: 82, effort: 4 })
      .toBuffer();
    await d.storage.put(key, webp, 'image/webp');
  };

  return {
    async ensurePreviews(presets) {
      const urls = new Map<string, string>();
      const wanted = presets.filter((p) => {
        if (SLUG.test(p.id)) return true;
        log(`style preview skipped: "${p.id}" is not a slug`);
        return false;
      });
      let drawn = 0;
      await eachLimited(wanted, concurrency, async (preset) => {
        const key = previewKeyFor(preset, d.model.name);
        try {
          if (!(await d.storage.exists(key))) {
            const started = Date.now();
            await draw(preset, key);
            drawn++;
            log(`style preview drawn: ${preset.id} → ${key} (${Date.now() - started} ms)`);
          }
          urls.set(preset.id, d.storage.publicUrl(key));
        } catch (error) {
          log(`style preview failed for ${preset.id}: ${error instanceof Error ? error.message : String(error)}`);
        }
      });
      if (drawn > 0) log(`style previews: ${drawn} drawn, ${urls.size - drawn} already stored`);
      // The caller gets ids in catalogue order, whatever order the drawing finished in.
      return Object.fromEntries(wanted.flatMap((p) => (urls.has(p.id) ? [[p.id, urls.get(p.id)!] as const] : [])));
    },
  };
};
