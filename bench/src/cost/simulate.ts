/**
 * How many requests of a trace need a model call under each caching policy (pure).
 *
 * - `none`: every request calls the model.
 * - `url`: a cache keyed by the full request URL (account, prompt as sent, style, size, format);
 *   a request is served from it once an earlier identical request's image exists; a miss while an
 *   identical request is still generating calls the model again (a plain cache, like a CDN
 *   without request collapsing).
 * - `urlCollapsed`: the same, plus joining an identical request in flight (the stricter baseline).
 * - `ours`: the service's rules (README "Cache, quota and rate limits"): per account, keyed by the
 *   normalised prompt + style; an exact size/format that exists is served; another size/format of
 *   an existing original is derived (no model call); an identical request (same key, size and
 *   format) in flight is joined; anything else calls the model — including another size of a
 *   prompt whose original is still generating (DECISIONS).
 */
import { normalizePrompt } from '@promptpix/core';
import type { TraceRequest } from './trace';

export interface SimParams {
  /** Time from accepting a generation to its image being in the cache (model + encode + store). */
  generateMs: number;
  /** Time for a derived variant to be stored. */
  deriveMs: number;
}

export interface PolicyCounts {
  requests: number;
  modelCalls: number;
  hits: number;
  joined: number;
  derived: number;
}

const empty = (requests: number): PolicyCounts => ({ requests, modelCalls: 0, hits: 0, joined: 0, derived: 0 });

function urlPolicy(trace: TraceRequest[], p: SimParams, collapse: boolean): PolicyCounts {
  const c = empty(trace.length);
  const readyAt = new Map<string, number>();
  for (const r of trace) {
    const key = `${r.account}\u0000${r.prompt}\u0000${r.style ?? ''}\u0000${r.variant}`;
    const ready = readyAt.get(key);
    if (ready !== undefined && ready <= r.t) c.hits++;
    else if (ready !== undefined && collapse) c.joined++;
    else {
      c.modelCalls++;
      readyAt.set(key, Math.min(ready ?? Infinity, r.t + p.generateMs));
    }
  }
  return c;
}

interface KeyState {
  /** When the first original of this key is stored. */
  originalAt: number;
  /** Per variant: when an image of that size/format is stored (original or derived). */
  variantAt: Map<number, number>;
  /** Per variant: generation in flight (single flight), until it completes. */
  inFlightUntil: Map<number, number>;
}

/** Which of our rules apply; all on is the service. Turning one off shows what it contributes. */
export interface Rules {
  normalize: boolean;
  derive: boolean;
  singleFlight: boolean;
}

const ALL_RULES: Rules = { normalize: true, derive: true, singleFlight: true };

function oursPolicy(trace: TraceRequest[], p: SimParams, rules: Rules = ALL_RULES): PolicyCounts {
  const c = empty(trace.length);
  const keys = new Map<string, KeyState>();
  for (const r0 of trace) {
    // Without derivation every size/format is its own key (cache + single flight only).
    const r = rules.derive ? r0 : { ...r0, prompt: `${r0.prompt}\u0000${r0.variant}` };
    const key = `${r.account}\u0000${rules.normalize ? normalizePrompt(r.prompt) : r.prompt}\u0000${r.style ?? ''}`;
    let s = keys.get(key);
    if (!s) {
      s = { originalAt: Infinity, variantAt: new Map(), inFlightUntil: new Map() };
      keys.set(key, s);
    }
    if (s.originalAt <= r.t) {
      const at = s.variantAt.get(r.variant);
      if (at !== undefined && at <= r.t) c.hits++;
      else {
        // Every such request derives (no single flight for derivations); the first stored wins.
        c.derived++;
        s.variantAt.set(r.variant, Math.min(at ?? Infinity, r.t + p.deriveMs));
      }
      continue;
    }
    const until = s.inFlightUntil.get(r.variant);
    if (rules.singleFlight && until !== undefined && until > r.t) {
      c.joined++;
      continue;
    }
    c.modelCalls++;
    const done = r.t + p.generateMs;
    s.inFlightUntil.set(r.variant, done);
    s.originalAt = Math.min(s.originalAt, done);
    s.variantAt.set(r.variant, Math.min(s.variantAt.get(r.variant) ?? Infinity, done));
  }
  return c;
}

export interface CostComparison {
  params: SimParams;
  none: PolicyCounts;
  url: PolicyCounts;
  urlCollapsed: PolicyCounts;
  ours: PolicyCounts;
  /** 1 - ours/url: fewer model calls than the URL-keyed cache. */
  savingVsUrl: number;
  savingVsUrlCollapsed: number;
  savingVsNone: number;
  /** Model calls with one of our rules turned off: what each rule saves. */
  withoutRule: { normalize: number; derive: number; singleFlight: number };
}

export function compareCosts(trace: TraceRequest[], p: SimParams): CostComparison {
  const sorted = [...trace].sort((a, b) => a.t - b.t);
  const none = { ...empty(sorted.length), modelCalls: sorted.length };
  const url = urlPolicy(sorted, p, false);
  const urlCollapsed = urlPolicy(sorted, p, true);
  const ours = oursPolicy(sorted, p);
  const r = (v: number) => Math.round(v * 1000) / 1000;
  return {
    params: p,
    none,
    url,
    urlCollapsed,
    ours,
    savingVsUrl: r(1 - ours.modelCalls / url.modelCalls),
    savingVsUrlCollapsed: r(1 - ours.modelCalls / urlCollapsed.modelCalls),
    savingVsNone: r(1 - ours.modelCalls / none.modelCalls),
    withoutRule: {
      normalize: oursPolicy(sorted, p, { ...ALL_RULES, normalize: false }).modelCalls,
      derive: oursPolicy(sorted, p, { ...ALL_RULES, derive: false }).modelCalls,
      singleFlight: oursPolicy(sorted, p, { ...ALL_RULES, singleFlight: false }).modelCalls,
    },
  };
}
