/**
 * Reads a deployment's term list from an environment variable (SAFETY_EXTRA_TERMS,
 * SAFETY_KIDS_TERMS): entries separated by commas or newlines, trimmed, lowercased,
 * inner whitespace collapsed, empties and duplicates dropped. A term may span several words.
 */
export function parseTermList(value: string | undefined): string[] {
  if (!value) return [];
  const terms = value
    .split(/[,\r\n]/)
    .map((entry) => entry.trim().replace(/\s+/g, ' ').toLowerCase())
    .filter((term) => term.length > 0);
  return [...new Set(terms)];
}
