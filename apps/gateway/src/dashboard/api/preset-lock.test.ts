import { STYLE_PRESETS, type PlanName, type StyleTier } from '@promptpix/core';
import { presetLocked } from './preset-lock';

describe('presetLocked', () => {
  it.each<[PlanName, StyleTier, boolean]>([
    ['free', 'free', false],
    ['free', 'starter', true],
    ['free', 'business', true],
    ['hobby', 'starter', false],
    ['hobby', 'pro', true],
    ['pro', 'pro', false],
    ['pro', 'business', true],
    ['business', 'business', false],
    ['enterprise', 'business', false],
    ['nonsense' as PlanName, 'free', true],
  ])('%s plan, %s tier → locked %s', (plan, tier, locked) => {
    expect(presetLocked(plan, { tier })).toBe(locked);
  });

  it('a free account has some presets unlocked and some locked; enterprise has none locked', () => {
    expect(STYLE_PRESETS.some((p) => presetLocked('free', p))).toBe(true);
    expect(STYLE_PRESETS.some((p) => !presetLocked('free', p))).toBe(true);
    expect(STYLE_PRESETS.filter((p) => presetLocked('enterprise', p))).toEqual([]);
  });
});
