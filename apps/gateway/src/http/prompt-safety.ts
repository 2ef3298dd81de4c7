import type { AgeBucket } from '@promptpix/contracts';
import { blockedModelText, fieldError, type ModelTexts, type PromptSafety } from '@promptpix/core';

/** A 400 naming `prompt` when the safety filter blocks it; checked before any generation, so it never costs quota. */
export function assertPromptAllowed(safety: PromptSafety | null, prompt: string, ageBucket: AgeBucket | undefined): void {
  const verdict = safety?.check(prompt, ageBucket);
  if (verdict && !verdict.allowed) throw fieldError('prompt', verdict.reason);
}

/** After the style is resolved: every text the model sees, its template included (400 naming `prompt` or `style`). */
export function assertModelTextsAllowed(safety: PromptSafety | null, texts: ModelTexts): void {
  const blocked = blockedModelText(safety, texts);
  if (blocked) throw fieldError(blocked.field, blocked.reason);
}
