import type { AgeBucket } from '@promptpix/contracts';
import type { PromptSafety, PromptSafetyVerdict } from './prompt-safety';
import { createByteBoundedMap } from '../services/byte-bounded-map';

/** The verdicts' default share of the gateway's heap. */
export const SAFETY_MEMO_MAX_BYTES = 2 * 2 ** 20;

/**
 * Remembers the verdicts of the most recently checked (prompt, age bucket) pairs, up to
 * `maxBytes` of prompts and verdicts. A verdict depends
 * on nothing else, and pages resolve the same prompts over and over: without this, an embed batch
 * of 50 cached elements spent most of its CPU re-checking prompts it had checked before.
 */
export function memoizePromptSafety(inner: PromptSafety, maxBytes = SAFETY_MEMO_MAX_BYTES): PromptSafety & { bytes(): number } {
  // Keyed by the prompt itself, with a verdict per age bucket: no key string built per check.
  const verdicts = createByteBoundedMap<Partial<Record<AgeBucket | 'any', PromptSafetyVerdict>>>({ maxBytes });
  return {
    check(prompt: string, ageBucket?: AgeBucket): PromptSafetyVerdict {
      const bucket = ageBucket ?? 'any';
      const known = verdicts.get(prompt);
      const verdict = known?.[bucket];
      if (verdict) {
        // Newest last, so the first key is the least recently used.
        verdicts.touch(prompt);
        return verdict;
      }
      const fresh = inner.check(prompt, ageBucket);
      verdicts.set(prompt, { ...known, [bucket]: fresh });
      return fresh;
    },
    /** Estimated bytes held. */
    bytes: verdicts.bytes,
  };
}
