import { plans, type PlanName } from '../plans';
import {
  STYLE_PRESETS,
  applyPromptTemplate,
  cacheStyleOf,
  familyOf,
  presetById,
  styleCategories,
  styleTiers,
  lowestPlanFor,
  tierAllows,
  visualFamilies,
  type StyleTier,
} from './presets';

const FREE_IDS = ['photorealistic', 'cinematic', 'modern-illustration', 'cartoon', 'watercolor'];

describe('STYLE_PRESETS', () => {
  it('has at least 22 presets', () => {
    expect(STYLE_PRESETS.length).toBeGreaterThanOrEqual(22);
  });

  it('has unique ids, each a lower-case slug', () => {
    const ids = STYLE_PRESETS.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
  });

  it('has unique names', () => {
    const names = STYLE_PRESETS.map((p) => p.name.toLowerCase());
    expect(new Set(names).size).toBe(names.length);
  });

  it.each(styleCategories)('has presets in category %s', (category) => {
    expect(STYLE_PRESETS.some((p) => p.category === category)).toBe(true);
  });

  it.each(styleTiers)('has presets in tier %s', (tier) => {
    expect(STYLE_PRESETS.some((p) => p.tier === tier)).toBe(true);
  });

  it('makes exactly the five presets the spec names free', () => {
    const free = STYLE_PRESETS.filter((p) => p.tier === 'free').map((p) => p.id);
    expect([...free].sort()).toEqual([...FREE_IDS].sort());
  });

  it.each(STYLE_PRESETS.map((p) => [p.id, p] as const))('%s is complete and well-formed', (_id, p) => {
    expect(p.name.trim()).not.toBe('');
    expect(p.description.trim()).not.toBe('');
    expect(p.tags.length).toBeGreaterThan(0);
    for (const tag of p.tags) expect(tag).toMatch(/^[a-z0-9-]+$/);
    expect(styleCategories).toContain(p.category);
    expect(styleTiers).toContain(p.tier);
    expect(visualFamilies).toContain(p.family);
    expect(p.promptTemplate.split('{prompt}')).toHaveLength(2);
  });

  it('cannot be changed at run time', () => {
    expect(Object.isFrozen(STYLE_PRESETS)).toBe(true);
    expect(Object.isFrozen(STYLE_PRESETS[0])).toBe(true);
    expect(Object.isFrozen(STYLE_PRESETS[0].tags)).toBe(true);
  });
});

describe('presetById', () => {
  it.each([
    ['watercolor', 'watercolor'],
    ['Watercolor', 'watercolor'],
    ['  pixel-art ', 'pixel-art'],
    ['3d-render', '3d-render'],
    ['water color', undefined],
    ['', undefined],
    ['constructor', undefined],
    ['__proto__', undefined],
    ['toString', undefined],
    [undefined, undefined],
    [null, undefined],
  ])('%p → %p', (input, id) => {
    expect(presetById(input)?.id).toBe(id);
  });

  it('finds every preset by its own id', () => {
    for (const p of STYLE_PRESETS) expect(presetById(p.id)).toBe(p);
  });
});

describe('cacheStyleOf', () => {
  it.each([
    ['Watercolor ', 'watercolor'],
    ['watercolor', 'watercolor'],
    ['0b6c8a4e-2f1d-4c3b-9a7e-5d4c3b2a1f00', '0b6c8a4e-2f1d-4c3b-9a7e-5d4c3b2a1f00'],
    ['not-a-style', 'not-a-style'],
    [undefined, undefined],
  ])('%p keys the cache as %p', (input, key) => {
    expect(cacheStyleOf(input)).toBe(key);
  });
});

describe('familyOf', () => {
  it.each([
    ['photorealistic', 'photographic'],
    ['watercolor', 'painterly'],
    ['cartoon', 'illustration'],
    ['pixel-art', 'pixel'],
    ['3d-render', '3d'],
    ['pencil-sketch', 'sketch'],
    ['2f1c5c1e-8f1c-4b7e-9a51-9d1c64a1b3f0', undefined],
    [undefined, undefined],
  ])('%p → %p', (style, family) => {
    expect(familyOf(style)).toBe(family);
  });
});

describe('tierAllows', () => {
  const table: Record<PlanName, Record<StyleTier, boolean>> = {
    free: { free: true, starter: false, pro: false, business: false },
    hobby: { free: true, starter: true, pro: false, business: false },
    pro: { free: true, starter: true, pro: true, business: false },
    business: { free: true, starter: true, pro: true, business: true },
    enterprise: { free: true, starter: true, pro: true, business: true },
  };
  const cases = plans.flatMap((plan) => styleTiers.map((tier) => [plan, tier, table[plan][tier]] as const));

  it('covers every plan and tier', () => {
    expect(cases).toHaveLength(plans.length * styleTiers.length);
  });

  it.each(cases)('%s plan, %s tier → %p', (plan, tier, allowed) => {
    expect(tierAllows(plan, tier)).toBe(allowed);
  });

  it.each(styleTiers)('the lowest plan for the %s tier is a plan accounts have, and it allows the tier', (tier) => {
    const plan = lowestPlanFor(tier);
    expect(plans).toContain(plan);
    expect(tierAllows(plan, tier)).toBe(true);
  });

  it('allows nothing for values outside the types (bad data)', () => {
    expect(tierAllows('platinum' as PlanName, 'free')).toBe(false);
    expect(tierAllows('enterprise', 'constructor' as StyleTier)).toBe(false);
    expect(tierAllows('__proto__' as PlanName, 'free')).toBe(false);
  });

  it('gives free accounts exactly the five free presets', () => {
    const usable = STYLE_PRESETS.filter((p) => tierAllows('free', p.tier)).map((p) => p.id);
    expect([...usable].sort()).toEqual([...FREE_IDS].sort());
  });

  it('gives enterprise accounts every preset', () => {
    expect(STYLE_PRESETS.every((p) => tierAllows('enterprise', p.tier))).toBe(true);
  });
});

describe('applyPromptTemplate', () => {
  it.each([
    ['watercolor painting of {prompt}, soft', 'a fox', 'watercolor painting of a fox, soft'],
    ['{prompt}', 'a fox', 'a fox'],
    ['{prompt} and again {prompt}', 'a fox', 'a fox and again a fox'],
    ['  {prompt}, cinematic  ', 'a fox', 'a fox, cinematic'],
    ['cinematic, moody', 'a fox', 'a fox, cinematic, moody'],
    ['', 'a fox', 'a fox'],
    ['   ', 'a fox', 'a fox'],
    ['art of {prompt}', 'price $& and $1', 'art of price $& and $1'],
    ['art of {prompt}', 'the {prompt} literal', 'art of the {prompt} literal'],
    ['art of {prompt}', '', 'art of '],
  ])('%p with %p → %p', (template, prompt, expected) => {
    expect(applyPromptTemplate(template, prompt)).toBe(expected);
  });

  it('applies every preset template around the prompt', () => {
    for (const p of STYLE_PRESETS) {
      const out = applyPromptTemplate(p.promptTemplate, 'a lighthouse');
      expect(out).toContain('a lighthouse');
      expect(out).not.toContain('{prompt}');
    }
  });
});
