import { tierAllows, type PlanName, type StylePreset } from '@promptpix/core';

/**
 * A preset is locked for a plan when the public API would refuse it: the same `tierAllows` rule
 * the style resolver applies to `style` on generate, render and embed.
 */
export const presetLocked = (plan: PlanName, preset: Pick<StylePreset, 'tier'>): boolean => !tierAllows(plan, preset.tier);
