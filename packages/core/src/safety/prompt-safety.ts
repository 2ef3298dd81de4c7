import type { AgeBucket } from '@promptpix/contracts';
import { RegExpMatcher, englishDataset, englishRecommendedTransformers } from 'obscenity';
import { KIDS_TERMS } from './kids-terms';
import { LIBRARY_FALSE_POSITIVES } from './library-false-positives';
import { normalizeForMatching } from './normalize';
import { compileTermMatcher } from './term-matcher';

export { parseTermList } from './term-list';

/** Field error for `prompt` when a prompt is refused for every age. Never names the word. */
export const PROMPT_BLOCKED_REASON = 'Prompt is not allowed: it contains blocked terms';
/** Field error for `prompt` when a prompt is refused only for the kids and bigkids age buckets. */
export const PROMPT_NOT_FOR_CHILDREN_REASON = 'Prompt is not allowed for this age group: it contains terms unsuitable for children';

export type PromptSafetyVerdict = { allowed: true } | { allowed: false; reason: string };

export interface PromptSafetyOptions {
  /** Blocked for every age; from SAFETY_EXTRA_TERMS (see parseTermList). */
  extraTerms?: string[];
  /** Blocked for kids and bigkids on top of KIDS_TERMS; from SAFETY_KIDS_TERMS. */
  extraKidsTerms?: string[];
}

export interface PromptSafety {
  /** No age bucket, or adults, applies the all-ages rules only. */
  check(prompt: string, ageBucket?: AgeBucket): PromptSafetyVerdict;
}

const ALLOWED: PromptSafetyVerdict = { allowed: true };
const CHILD_BUCKETS: ReadonlySet<AgeBucket> = new Set(['kids', 'bigkids']);
// The symbols obscenity's leetspeak decoding reads as letters (@ a, ( c, ! and | i, / l, $ s).
const LEET_SYMBOLS = /[@(!|/$]/g;

/**
 * The ways a prompt is read. Leetspeak decoding turns "!" into "i" and "(" into "c", so
 * "guns!" or "(tits)" would no longer start or end on a word boundary; a second reading with
 * those symbols as spaces keeps whole-word terms matching next to them.
 */
const readingsOf = (prompt: string): string[] => {
  const spaced = prompt.replace(LEET_SYMBOLS, ' ');
  return spaced === prompt ? [prompt] : [prompt, spaced];
};

/**
 * Screens prompts before any generation: the obscenity library's English list (profanity,
 * sexual terms, slurs; resists leetspeak and look-alike letters) and the deployment's extra
 * terms for every age, plus KIDS_TERMS and extra kids terms for kids and bigkids.
 * Build it once at start-up: the matchers are compiled here, not per check.
 */
export function createPromptSafety(options: PromptSafetyOptions = {}): PromptSafety {
  const { blacklistedTerms, whitelistedTerms } = englishDataset.build();
  const library = new RegExpMatcher({
    blacklistedTerms,
    whitelistedTerms: [...(whitelistedTerms ?? []), ...LIBRARY_FALSE_POSITIVES],
    ...englishRecommendedTransformers,
  });
  const extra = compileTermMatcher(options.extraTerms ?? []);
  const kids = compileTermMatcher([...KIDS_TERMS, ...(options.extraKidsTerms ?? [])]);

  return {
    check(prompt, ageBucket) {
      const readings = readingsOf(prompt);
      const forChildren = ageBucket !== undefined && CHILD_BUCKETS.has(ageBucket);
      const normalized = extra || forChildren ? readings.map(normalizeForMatching) : [];
      if (readings.some((reading) => library.hasMatch(reading)) || (extra && normalized.some((text) => extra.test(text)))) {
        return { allowed: false, reason: PROMPT_BLOCKED_REASON };
      }
      if (forChildren && kids && normalized.some((text) => kids.test(text))) {
        return { allowed: false, reason: PROMPT_NOT_FOR_CHILDREN_REASON };
      }
      return ALLOWED;
    },
  };
}
