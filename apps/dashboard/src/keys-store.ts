/**
 * The publishable key created in this browser, kept so the Embed page can fill its snippet in:
 * the API stores only a hash and shows a key once. Publishable keys are public by design (they
 * sit in every embedding page), so localStorage is an acceptable home; secret keys never go here.
 */
const storageKey = (handle: string) => `promptpix.publishableKey.${handle}`;

export function rememberPublishableKey(handle: string, key: string): void {
  try {
    localStorage.setItem(storageKey(handle), key);
  } catch {
    /* storage disabled: the snippet shows the placeholder */
  }
}

export function rememberedPublishableKey(handle: string): string | null {
  try {
    return localStorage.getItem(storageKey(handle));
  } catch {
    return null;
  }
}

export function forgetPublishableKey(handle: string, prefix: string): void {
  const key = rememberedPublishableKey(handle);
  if (key?.startsWith(prefix)) localStorage.removeItem(storageKey(handle));
}

/** "a.com, b.com\nc.com" → ["a.com", "b.com", "c.com"] */
export const parseDomains = (text: string): string[] =>
  text
    .split(/[\s,]+/)
    .map((d) => d.trim())
    .filter(Boolean);
