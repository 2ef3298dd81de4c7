import sharp from 'sharp';
import type { ImageModel, ModelRequest } from '@promptpix/core';
import type { Storage } from '@promptpix/core';
import { STYLE_PRESETS } from '@promptpix/core';
import { createProceduralModel } from './procedural';
import { PREVIEW_PROMPTS, PREVIEW_SIZE, createStylePreviewer, previewKeyFor, previewPromptFor } from './previews';

/** Storage port fake: a Map, with the calls it saw. */
const memoryStorage = () => {
  const objects = new Map<string, { body: Buffer; contentType: string }>();
  const calls = { put: 0, exists: 0 };
  const storage: Storage = {
    async put(key, body, contentType) {
      calls.put++;
      objects.set(key, { body, contentType });
    },
    async get(key) {
      return objects.get(key)?.body ?? null;
    },
    async exists(key) {
      calls.exists++;
      return objects.has(key);
    },
    async delete(key) {
      objects.delete(key);
    },
    publicUrl: (key) => `https://cdn.example.test/${key}`,
    async ping() {},
  };
  return { storage, objects, calls };
};

/** The procedural model, counting calls and the most it was asked to draw at once. */
const countingModel = (fail?: (r: ModelRequest) => boolean) => {
  const inner = createProceduralModel();
  const seen: ModelRequest[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const model: ImageModel = {
    name: inner.name,
    async generate(request, signal) {
      seen.push(request);
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      try {
        if (fail?.(request)) throw new Error(`model refused ${request.style}`);
        return await inner.generate(request, signal);
      } finally {
        inFlight--;
      }
    },
  };
  return { model, seen, maxInFlight: () => maxInFlight };
};

describe('style previews', () => {
  it('draws one 512² WebP per preset, keyed and addressed predictably', async () => {
    const { storage, objects } = memoryStorage();
    const { model, seen, maxInFlight } = countingModel();
    const urls = await createStylePreviewer({ model, storage }).ensurePreviews(STYLE_PRESETS);

    expect(Object.keys(urls)).toEqual(STYLE_PRESETS.map((p) => p.id));
    expect(objects.size).toBe(STYLE_PRESETS.length);
    expect(seen).toHaveLength(STYLE_PRESETS.length);
    expect(maxInFlight()).toBeLessThanOrEqual(2);
    for (const preset of STYLE_PRESETS) {
      const key = previewKeyFor(preset, model.name);
      expect(key).toMatch(new RegExp(`^previews/${preset.id}-[0-9a-f]{12}\\.webp$`));
      expect(urls[preset.id]).toBe(`https://cdn.example.test/${key}`);
      const stored = objects.get(key)!;
      expect(stored.contentType).toBe('image/webp');
      const meta = await sharp(stored.body).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(['webp', PREVIEW_SIZE, PREVIEW_SIZE]);
    }
    // Drawn with the preset's style at full strength, the category's sample prompt and its template.
    for (const request of seen) {
      const preset = STYLE_PRESETS.find((p) => p.id === request.style)!;
      expect(request).toMatchObject({
        strength: 1,
        width: PREVIEW_SIZE,
        height: PREVIEW_SIZE,
        prompt: PREVIEW_PROMPTS[preset.category],
        promptTemplate: preset.promptTemplate,
      });
    }
    expect(new Set(seen.map((r) => r.seed)).size).toBe(1);
  });

  it('draws nothing on a second run (a restart): every preview is already stored', async () => {
    const { storage, calls } = memoryStorage();
    const first = countingModel();
    const before = await createStylePreviewer({ model: first.model, storage }).ensurePreviews(STYLE_PRESETS);
    const putsAfterFirst = calls.put;

    const second = countingModel();
    const after = await createStylePreviewer({ model: second.model, storage }).ensurePreviews(STYLE_PRESETS);
    expect(second.seen).toHaveLength(0);
    expect(calls.put).toBe(putsAfterFirst);
    expect(after).toEqual(before);
  });

  it('draws only what is missing', async () => {
    const { storage, objects } = memoryStorage();
    const { model } = countingModel();
    const previewer = createStylePreviewer({ model, storage });
    await previewer.ensurePreviews(STYLE_PRESETS.slice(0, 3));
    objects.delete(previewKeyFor(STYLE_PRESETS[1], model.name));
    const again = countingModel();
    await createStylePreviewer({ model: again.model, storage }).ensurePreviews(STYLE_PRESETS.slice(0, 3));
    expect(again.seen.map((r) => r.style)).toEqual([STYLE_PRESETS[1].id]);
  });

  it('leaves out a preset whose preview fails, logs it, and keeps the others', async () => {
    const { storage } = memoryStorage();
    const { model } = countingModel((r) => r.style === 'cartoon');
    const logged: string[] = [];
    const presets = STYLE_PRESETS.filter((p) => p.tier === 'free');
    const urls = await createStylePreviewer({ model, storage, log: (m) => logged.push(m) }).ensurePreviews(presets);
    expect(Object.keys(urls)).toEqual(presets.map((p) => p.id).filter((id) => id !== 'cartoon'));
    expect(logged.some((m) => m.includes('cartoon') && m.includes('model refused'))).toBe(true);
  });

  it('skips ids that are not slugs (they would become object keys)', async () => {
    const { storage, objects } = memoryStorage();
    const { model, seen } = countingModel();
    const urls = await createStylePreviewer({ model, storage }).ensurePreviews([{ id: '../escape' }, { id: 'Water Color' }, { id: '' }]);
    expect(urls).toEqual({});
    expect(seen).toHaveLength(0);
    expect(objects.size).toBe(0);
  });

  it('gives a new key when anything that decides the picture changes', () => {
    const base = { id: 'watercolor', category: 'artistic', promptTemplate: 'watercolor of {prompt}' };
    const key = previewKeyFor(base, 'procedural');
    expect(previewKeyFor({ ...base }, 'procedural')).toBe(key);
    expect(previewKeyFor({ ...base, category: 'photo' }, 'procedural')).not.toBe(key);
    expect(previewKeyFor({ ...base, promptTemplate: 'soft watercolor of {prompt}' }, 'procedural')).not.toBe(key);
    expect(previewKeyFor(base, 'openai')).not.toBe(key);
    expect(previewKeyFor({ ...base, id: 'cartoon' }, 'procedural')).not.toBe(key);
  });

  it('uses one sample prompt per category, the general one otherwise', () => {
    expect(previewPromptFor({ id: 'x', category: 'photo' })).toBe('sunset over the ocean and mountains');
    expect(previewPromptFor({ id: 'x', category: 'fantasy' })).toBe(PREVIEW_PROMPTS.fantasy);
    expect(previewPromptFor({ id: 'x' })).toBe(PREVIEW_PROMPTS.general);
    expect(previewPromptFor({ id: 'x', category: 'constructor' })).toBe(PREVIEW_PROMPTS.general);
  });
});
