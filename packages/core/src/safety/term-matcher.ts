import { normalizeForMatching } from './normalize';

const WORD_CHAR = '[\\p{L}\\p{N}]';

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * One regular expression matching any of the terms as whole words (no letter or digit on
 * either side) in text passed through normalizeForMatching. Null when there are no terms.
 */
export function compileTermMatcher(terms: readonly string[]): RegExp | null {
  const normalized = new Set(terms.map((term) => normalizeForMatching(term.trim())).filter((term) => term.length > 0));
  if (normalized.size === 0) return null;
  const alternatives = [...normalized].map(escapeRegExp).join('|');
  return new RegExp(`(?<!${WORD_CHAR})(?:${alternatives})(?!${WORD_CHAR})`, 'u');
}
