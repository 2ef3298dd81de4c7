import type { AgeBucket } from '@promptpix/contracts';
import { fieldError, type PromptSafety } from '@promptpix/core';

/** A 400 naming `prompt` when the safety filter blocks it; checked before any generation, so it never costs quota. */
export function assertPromptAllowed(safety: PromptSafety | null, prompt: string, ageBucket: AgeBucket | undefined): void {
  const verdict = safety?.check(prompt, ageBucket);
  if (verdict && !verdict.allowed) throw fieldError('prompt', verdict.reason);
}
