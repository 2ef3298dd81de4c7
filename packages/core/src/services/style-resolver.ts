import { AppError, fieldError } from '../errors';
import { isUuid } from '../ids';
import type { PlanName } from '../plans';
import { lowestPlanFor, presetById, tierAllows, type StylePreset } from '../styles';

export interface OwnStyle {
  id: string;
  baseStyle: string | null;
  promptTemplate: string | null;
}

export interface ResolvedStyle {
  /** What the caller passed: part of the cache key. */
  style?: string;
  /** The preset whose look the renderer applies (own styles render as their base preset). */
  renderStyle?: string;
  promptTemplate?: string;
}

/** 403 when the plan may not use the preset. */
function assertPresetAllowed(plan: PlanName, preset: StylePreset): void {
  if (!tierAllows(plan, preset.tier)) throw new AppError('forbidden', `The style "${preset.id}" needs the ${lowestPlanFor(preset.tier)} plan or higher`);
}

/**
 * An own style renders as its base preset, so the base must be one the plan allows: checked when
 * the style is saved and again at each use, since a plan can be lowered in between.
 */
export function assertBaseStyleAllowed(plan: PlanName, baseStyle: string | null | undefined): void {
  const base = baseStyle ? presetById(baseStyle) : undefined;
  if (base) assertPresetAllowed(plan, base);
}

/**
 * `style` on generate, render and embed: a preset id the account's plan allows, or the id of one
 * of the account's own styles. Unknown → 400 naming the field; above the plan (the own style's
 * base included) → 403.
 */
export const createStyleResolver = (d: { findOwn(accountId: string, id: string): Promise<OwnStyle | null> }) => ({
  async resolve(account: { id: string; plan: PlanName }, style: string | undefined): Promise<ResolvedStyle> {
    if (style === undefined) return {};
    const preset: StylePreset | undefined = presetById(style);
    if (preset) {
      assertPresetAllowed(account.plan, preset);
      // The preset's own id keys the cache, whatever the caller's spelling ("Watercolor ").
      return { style: preset.id, renderStyle: preset.id, promptTemplate: preset.promptTemplate };
    }
    const own = isUuid(style) ? await d.findOwn(account.id, style) : null;
    if (!own) throw fieldError('style', 'Unknown style: use a preset id or one of your own styles');
    assertBaseStyleAllowed(account.plan, own.baseStyle);
    const base = own.baseStyle ? presetById(own.baseStyle) : undefined;
    return { style, renderStyle: base?.id, promptTemplate: own.promptTemplate ?? base?.promptTemplate };
  },
});

export type StyleResolver = ReturnType<typeof createStyleResolver>;
