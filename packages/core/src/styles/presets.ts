import type { styleCategories, styleTiers, VisualFamily } from '@promptpix/contracts';
import type { PlanName } from '../plans';

// Where a preset is listed, the plan it needs (`starter` is the hobby plan) and its visual family
// are wire vocabulary, stated in @promptpix/contracts.
export { styleCategories, styleTiers, visualFamilies, type VisualFamily } from '@promptpix/contracts';
export type StyleCategory = (typeof styleCategories)[number];
export type StyleTier = (typeof styleTiers)[number];

export interface StylePreset {
  /** Slug passed as `style`. */
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly tags: readonly string[];
  readonly category: StyleCategory;
  readonly tier: StyleTier;
  readonly family: VisualFamily;
  /** Prompt wording for real model adapters; contains `{prompt}`. */
  readonly promptTemplate: string;
}

const preset = (p: StylePreset): StylePreset => Object.freeze({ ...p, tags: Object.freeze([...p.tags]) });

/** The service's presets, in display order. The five free ones come first (spec, Style resource). */
export const STYLE_PRESETS: readonly StylePreset[] = Object.freeze([
  // Free
  preset({
    id: 'photorealistic',
    name: 'Photorealistic',
    description: 'Natural light, true colours and fine detail, like a photograph taken with a good lens.',
    tags: ['photographic', 'realistic'],
    category: 'photo',
    tier: 'free',
    family: 'photographic',
    promptTemplate: 'photorealistic photograph of {prompt}, natural lighting, sharp focus, shallow depth of field, 50mm lens, highly detailed',
  }),
  preset({
    id: 'cinematic',
    name: 'Cinematic',
    description: 'A film still: widescreen framing, teal and orange grade, dramatic contrast.',
    tags: ['photographic', 'film', 'dramatic'],
    category: 'photo',
    tier: 'free',
    family: 'photographic',
    promptTemplate: 'cinematic film still of {prompt}, anamorphic widescreen, teal and orange colour grade, dramatic lighting, film grain',
  }),
  preset({
    id: 'modern-illustration',
    name: 'Modern illustration',
    description: 'Clean flat shapes in a soft pastel palette, as in editorial and product illustration.',
    tags: ['illustration', 'flat', 'pastel'],
    category: 'illustration',
    tier: 'free',
    family: 'illustration',
    promptTemplate: 'modern flat illustration of {prompt}, clean vector shapes, soft pastel palette, minimal shading, editorial style',
  }),
  preset({
    id: 'cartoon',
    name: 'Cartoon',
    description: 'Bold outlines, flat bright colours and simple shading.',
    tags: ['illustration', 'playful', 'bold'],
    category: 'illustration',
    tier: 'free',
    family: 'illustration',
    promptTemplate: 'cartoon drawing of {prompt}, bold black outlines, flat bright colours, cel shading, playful',
  }),
  preset({
    id: 'watercolor',
    name: 'Watercolor',
    description: 'Soft washes that bleed at the edges, on textured paper.',
    tags: ['painterly', 'soft', 'traditional'],
    category: 'artistic',
    tier: 'free',
    family: 'painterly',
    promptTemplate: 'watercolor painting of {prompt}, soft washes, pigment bleeding at the edges, visible paper texture, light and airy',
  }),

  // Photo
  preset({
    id: 'film-noir',
    name: 'Film noir',
    description: 'Black and white with deep shadows, hard light and grain.',
    tags: ['photographic', 'monochrome', 'dramatic'],
    category: 'photo',
    tier: 'starter',
    family: 'photographic',
    promptTemplate: 'film noir photograph of {prompt}, black and white, high contrast, hard shadows, 1940s, film grain',
  }),
  preset({
    id: 'vintage-photo',
    name: 'Vintage photo',
    description: 'Sepia tones, faded blacks and soft focus of an old print.',
    tags: ['photographic', 'retro', 'sepia'],
    category: 'photo',
    tier: 'starter',
    family: 'photographic',
    promptTemplate: 'vintage sepia photograph of {prompt}, faded print, soft focus, vignette, early 20th century',
  }),
  preset({
    id: 'golden-hour',
    name: 'Golden hour',
    description: 'Warm low sun, glowing highlights and a gentle haze.',
    tags: ['photographic', 'warm', 'glow'],
    category: 'photo',
    tier: 'pro',
    family: 'photographic',
    promptTemplate: 'photograph of {prompt} at golden hour, warm low sunlight, glowing highlights, soft haze, lens flare',
  }),
  preset({
    id: 'product-photography',
    name: 'Product photography',
    description: 'Bright, clean studio light with crisp detail.',
    tags: ['photographic', 'studio', 'commercial'],
    category: 'photo',
    tier: 'business',
    family: 'photographic',
    promptTemplate: 'professional studio product photograph of {prompt}, high-key softbox lighting, crisp detail, clean background',
  }),

  // Illustration
  preset({
    id: 'anime',
    name: 'Anime',
    description: 'Cel-shaded colour, thin line work and luminous skies.',
    tags: ['illustration', 'anime', 'vibrant'],
    category: 'illustration',
    tier: 'starter',
    family: 'illustration',
    promptTemplate: 'anime style illustration of {prompt}, cel shading, clean line art, vibrant colours, detailed sky',
  }),
  preset({
    id: 'childrens-book',
    name: "Children's book",
    description: 'Warm, gentle colours with a soft crayon and paper feel.',
    tags: ['illustration', 'soft', 'whimsical'],
    category: 'illustration',
    tier: 'starter',
    family: 'illustration',
    promptTemplate: "children's book illustration of {prompt}, warm gentle colours, soft textures, whimsical, hand drawn",
  }),
  preset({
    id: 'pixel-art',
    name: 'Pixel art',
    description: 'Chunky pixels and a limited palette, like a 16-bit game.',
    tags: ['illustration', 'retro', 'game'],
    category: 'illustration',
    tier: 'starter',
    family: 'pixel',
    promptTemplate: 'pixel art of {prompt}, 16-bit, limited palette, crisp pixels, retro video game',
  }),
  preset({
    id: 'comic-book',
    name: 'Comic book',
    description: 'Heavy inks, halftone dots and punchy flat colour.',
    tags: ['illustration', 'comic', 'bold'],
    category: 'illustration',
    tier: 'pro',
    family: 'illustration',
    promptTemplate: 'comic book panel of {prompt}, heavy ink outlines, halftone shading, bold flat colours',
  }),

  // Artistic
  preset({
    id: 'oil-painting',
    name: 'Oil painting',
    description: 'Rich colour laid on in thick strokes, on canvas.',
    tags: ['painterly', 'traditional', 'rich'],
    category: 'artistic',
    tier: 'starter',
    family: 'painterly',
    promptTemplate: 'oil painting of {prompt}, thick impasto brush strokes, rich colours, canvas texture',
  }),
  preset({
    id: 'pencil-sketch',
    name: 'Pencil sketch',
    description: 'Graphite lines and soft shading on paper.',
    tags: ['sketch', 'monochrome', 'traditional'],
    category: 'artistic',
    tier: 'starter',
    family: 'sketch',
    promptTemplate: 'pencil sketch of {prompt}, graphite on paper, fine hatching, soft shading',
  }),
  preset({
    id: 'impressionist',
    name: 'Impressionist',
    description: 'Broken colour in short dabs, light over detail.',
    tags: ['painterly', 'classic', 'vibrant'],
    category: 'artistic',
    tier: 'pro',
    family: 'painterly',
    promptTemplate: 'impressionist painting of {prompt}, short visible brush dabs, broken colour, dappled light, plein air',
  }),
  preset({
    id: 'charcoal',
    name: 'Charcoal',
    description: 'Smudged dark masses and rough strokes on toned paper.',
    tags: ['sketch', 'monochrome', 'dramatic'],
    category: 'artistic',
    tier: 'pro',
    family: 'sketch',
    promptTemplate: 'charcoal drawing of {prompt}, smudged tones, rough expressive strokes, toned paper',
  }),
  preset({
    id: 'pop-art',
    name: 'Pop art',
    description: 'Loud saturated colour, thick outlines and Ben-Day dots.',
    tags: ['illustration', 'retro', 'bold'],
    category: 'artistic',
    tier: 'pro',
    family: 'illustration',
    promptTemplate: 'pop art of {prompt}, saturated primary colours, thick outlines, Ben-Day dots, 1960s screen print',
  }),

  // Technical
  preset({
    id: 'line-art',
    name: 'Line art',
    description: 'Clean black contour lines on white.',
    tags: ['technical', 'minimal', 'monochrome'],
    category: 'technical',
    tier: 'starter',
    family: 'technical',
    promptTemplate: 'clean line art of {prompt}, black ink contour lines on white, no shading',
  }),
  preset({
    id: 'blueprint',
    name: 'Blueprint',
    description: 'White construction lines on blueprint blue, with a grid.',
    tags: ['technical', 'engineering', 'monochrome'],
    category: 'technical',
    tier: 'pro',
    family: 'technical',
    promptTemplate: 'technical blueprint of {prompt}, white construction lines on blue paper, grid, annotations',
  }),
  preset({
    id: 'infographic',
    name: 'Infographic',
    description: 'A few flat brand colours on a quiet grid, ready for slides.',
    tags: ['technical', 'flat', 'corporate'],
    category: 'technical',
    tier: 'business',
    family: 'technical',
    promptTemplate: 'flat infographic illustration of {prompt}, limited corporate palette, simple geometric shapes, clean grid layout',
  }),

  // Fantasy
  preset({
    id: 'fantasy-art',
    name: 'Fantasy art',
    description: 'Glowing light, jewel colours and an epic mood.',
    tags: ['fantasy', 'epic', 'glow'],
    category: 'fantasy',
    tier: 'starter',
    family: 'fantasy',
    promptTemplate: 'epic fantasy art of {prompt}, magical glowing light, rich jewel colours, highly detailed digital painting',
  }),
  preset({
    id: 'dark-fantasy',
    name: 'Dark fantasy',
    description: 'Muted, shadowy and ominous, with a crimson edge.',
    tags: ['fantasy', 'dark', 'moody'],
    category: 'fantasy',
    tier: 'pro',
    family: 'fantasy',
    promptTemplate: 'dark fantasy art of {prompt}, ominous atmosphere, deep shadows, muted colours with crimson accents',
  }),
  preset({
    id: 'ethereal',
    name: 'Ethereal',
    description: 'Soft glow, pale pastels and a dreamlike haze.',
    tags: ['fantasy', 'soft', 'dreamy'],
    category: 'fantasy',
    tier: 'pro',
    family: 'fantasy',
    promptTemplate: 'ethereal dreamlike image of {prompt}, soft glow, pale pastel light, hazy, luminous',
  }),
  preset({
    id: 'synthwave',
    name: 'Synthwave',
    description: 'Magenta and orange retro-future glow with scanlines.',
    tags: ['fantasy', 'retro', 'neon'],
    category: 'fantasy',
    tier: 'business',
    family: 'fantasy',
    promptTemplate: 'synthwave artwork of {prompt}, 1980s retro-futurism, magenta and orange gradient, neon glow, scanlines',
  }),

  // General
  preset({
    id: 'minimalist',
    name: 'Minimalist',
    description: 'Few shapes, few colours, lots of calm space.',
    tags: ['flat', 'minimal', 'calm'],
    category: 'general',
    tier: 'starter',
    family: 'illustration',
    promptTemplate: 'minimalist image of {prompt}, few simple shapes, muted limited palette, generous negative space',
  }),
  preset({
    id: 'neon',
    name: 'Neon',
    description: 'Glowing coloured outlines against the dark.',
    tags: ['vibrant', 'night', 'glow'],
    category: 'general',
    tier: 'pro',
    family: 'fantasy',
    promptTemplate: 'neon light image of {prompt}, glowing coloured outlines, dark background, vivid',
  }),
  preset({
    id: '3d-render',
    name: '3D render',
    description: 'Smooth clay-like forms with soft studio lighting.',
    tags: ['3d', 'smooth', 'modern'],
    category: 'general',
    tier: 'business',
    family: '3d',
    promptTemplate: '3d render of {prompt}, smooth clay materials, soft global illumination, studio lighting, octane render',
  }),
]);

const byId = new Map<string, StylePreset>(STYLE_PRESETS.map((p) => [p.id, p]));

/** The preset with this id (case and surrounding spaces ignored); undefined for anything else. */
export const presetById = (id: string | undefined | null): StylePreset | undefined => (typeof id === 'string' ? byId.get(id.trim().toLowerCase()) : undefined);

/** The style as it keys the render cache: a preset by its own id, whatever the caller's spelling; an own style by its id. */
export const cacheStyleOf = (style: string | undefined): string | undefined => (style === undefined ? undefined : (presetById(style)?.id ?? style));

/** free < starter (the hobby plan) < pro < business; enterprise has every tier. */
const planRank: Readonly<Record<PlanName, number>> = { free: 0, hobby: 1, pro: 2, business: 3, enterprise: 4 };
const tierRank: Readonly<Record<StyleTier, number>> = { free: 0, starter: 1, pro: 2, business: 3 };

/** The plan a tier first comes with, as accounts and the operator CLI name plans (the spec's `starter` tier is the hobby plan). */
export const lowestPlanFor = (tier: StyleTier): PlanName => (tier === 'starter' ? 'hobby' : tier);

/** Whether an account on `plan` may use a preset of `tier`. Unknown plans or tiers allow nothing. */
export const tierAllows = (plan: PlanName, tier: StyleTier): boolean => {
  const p = Object.hasOwn(planRank, plan) ? planRank[plan] : undefined;
  const t = Object.hasOwn(tierRank, tier) ? tierRank[tier] : undefined;
  return p !== undefined && t !== undefined && p >= t;
};

/**
 * Puts `prompt` into `template` wherever it says `{prompt}`. A template without the placeholder
 * is treated as a suffix (`prompt, template`); an empty template gives the prompt unchanged.
 * Replacement is literal: `$&` or `{prompt}` inside the prompt are not expanded.
 */
export const applyPromptTemplate = (template: string, prompt: string): string => {
  const t = template.trim();
  if (t === '') return prompt;
  if (!t.includes('{prompt}')) return `${prompt}, ${t}`;
  return t.split('{prompt}').join(prompt);
};

/** The visual family of a style id; custom or unmapped styles have none. */
export const familyOf = (style: string | undefined | null): VisualFamily | undefined => presetById(style)?.family;
