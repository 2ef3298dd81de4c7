import { englishRecommendedBlacklistMatcherTransformers, type TransformerContainer } from 'obscenity';

type CharStep = (char: number) => number | undefined;

// Stateful transformers (collapsing repeated letters) need a fresh instance per text.
const stepsOf = (transformers: readonly TransformerContainer[]): CharStep[] =>
  transformers.map((transformer) => {
    if ('transform' in transformer) return transformer.transform;
    const instance = transformer.factory();
    return (char) => instance.transform(char);
  });

/**
 * The spelling the library's English matcher compares against: look-alike characters and
 * leetspeak resolved, lowercased, repeated letters collapsed. Whitespace runs become one space
 * so multi-word terms match across line breaks. Applied to both terms and prompts.
 */
export function normalizeForMatching(text: string): string {
  const steps = stepsOf(englishRecommendedBlacklistMatcherTransformers);
  let normalized = '';
  for (const char of text.replace(/\s+/g, ' ')) {
    let code: number | undefined = char.codePointAt(0);
    for (let i = 0; i < steps.length && code !== undefined; i++) code = steps[i](code);
    if (code !== undefined) normalized += String.fromCodePoint(code);
  }
  return normalized;
}
