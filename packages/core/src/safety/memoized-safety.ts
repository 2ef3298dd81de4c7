import type { AgeBucket } from '@promptpix/contracts';
import type { PromptSafety, PromptSafetyVerdict } from './prompt-safety';

/**
 * Remembers the verdicts of the last `maxEntries` (prompt, age bucket) pairs. A verdict depends
 * on nothing else, and pages resolve the same prompts over and over: without this, an embed batch
 * of 50 cached elements spent most of its CPU re-checking prompts it had checked before.
 */
export function memoizePromptSafety(inner: PromptSafety, maxEntries = 10_000): PromptSafety {
  const verdicts = new Map<string, PromptSafetyVerdict>();
  return {
    check(prompt: string, ageBucket?: AgeBucket): PromptSafetyVerdict {
      const key = `${ageBucket ?? ''}\0${prompt}`;
      const known = verdicts.get(key);
      if (known) {
        // Newest last, so the first key is the least recently used.
        verdicts.delete(key);
        verdicts.set(key, known);
        return known;
      }
      const verdict = inner.check(prompt, ageBucket);
      verdicts.set(key, verdict);
      if (verdicts.size > maxEntries) verdicts.delete(verdicts.keys().next().value as string);
      return verdict;
    },
  };
}
