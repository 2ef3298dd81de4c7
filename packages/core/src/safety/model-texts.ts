import type { AgeBucket } from '@promptpix/contracts';
import type { PromptSafety } from './prompt-safety';

/** The texts of a generation that reach the model, as resolved (the style's template included). */
export interface ModelTexts {
  prompt: string;
  /** An own style's template or a preset's; the model reads it with the prompt in its place. */
  promptTemplate?: string;
  ageBucket?: AgeBucket;
}

export interface BlockedText {
  /** The request field a caller changes to get past the refusal. */
  field: 'prompt' | 'style';
  reason: string;
}

/**
 * Screens every text the model sees with the same filter and age bucket, so a clean prompt cannot
 * carry a blocked template in. Negative prompts are not screened: every adapter passes them as
 * negative conditioning (what to steer away from), never as content.
 */
export function blockedModelText(safety: PromptSafety | null, texts: ModelTexts): BlockedText | null {
  if (!safety) return null;
  const prompt = safety.check(texts.prompt, texts.ageBucket);
  if (!prompt.allowed) return { field: 'prompt', reason: prompt.reason };
  if (texts.promptTemplate === undefined) return null;
  const template = safety.check(texts.promptTemplate.replaceAll('{prompt}', ' '), texts.ageBucket);
  return template.allowed ? null : { field: 'style', reason: `The style's prompt template is not allowed here: ${template.reason}` };
}
