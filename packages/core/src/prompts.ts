/** Two whitespace characters in a row, or one that is not a plain space. */
const COLLAPSIBLE = /\s\s|[^\S ]/;

/** Cache-key form of a prompt: trimmed, inner whitespace collapsed, case kept (DECISIONS). */
export const normalizePrompt = (prompt: string): string => {
  const trimmed = prompt.trim();
  // Most prompts are already single-spaced: test before building a new string.
  return COLLAPSIBLE.test(trimmed) ? trimmed.replace(/\s+/g, ' ') : trimmed;
};
