/**
 * Names the wire shapes share with the domain rules in @promptpix/core. They are stated here, once,
 * and core imports them: core depends on this package, never the other way round.
 */

/** Account plans. */
export const plans = ['free', 'hobby', 'pro', 'business', 'enterprise'] as const;
export type PlanName = (typeof plans)[number];

/**
 * The broad look a preset belongs to. Character references are prepared once per family and
 * reused by every style of that family; custom or unmapped styles have none.
 */
export const visualFamilies = ['photographic', 'illustration', 'painterly', 'sketch', '3d', 'pixel', 'technical', 'fantasy'] as const;
export type VisualFamily = (typeof visualFamilies)[number];

/** The upper bound of any one publishable-key budget setting (a key with no practical limit). */
/** The two kinds of API key: secret (servers) and publishable (pages). */
export const keyKinds = ['secret', 'publishable'] as const;
export type KeyKind = (typeof keyKinds)[number];

export const MAX_BUDGET = 1_000_000;
