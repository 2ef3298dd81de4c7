/** Cache-key form of a prompt: trimmed, inner whitespace collapsed, case kept (DECISIONS). */
export const normalizePrompt = (prompt: string): string => prompt.trim().replace(/\s+/g, ' ');
