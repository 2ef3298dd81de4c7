/**
 * How much of a prompt the meaning adapters read: its first MEANING_WORDS words. Encoding a word
 * the caches have not seen costs about 1.7 ms of synchronous file reads (WordNet senses and
 * relations, the word-vector record), so a 2,000-character prompt of distinct words cost 370 to
 * 690 ms of the event loop, and an embed batch of 50 instant elements about 20 s: work a
 * publishable key could start. An image prompt's subject is in its first words; the rest is detail
 * that rarely decides which library image is closest.
 */
export const MEANING_WORDS = 24;

export function meaningWords(text: string, limit = MEANING_WORDS): string {
  const words = text.trim().split(/\s+/);
  return words.length <= limit ? text : words.slice(0, limit).join(' ');
}
