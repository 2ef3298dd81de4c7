/**
 * Domain lists on keys (spec, Authentication 7): empty list = any domain; `*.example.com`
 * covers example.com and every subdomain; localhost always passes; no origin passes; the opaque
 * origin `null` is foreign to a list.
 */

/** Host name of an Origin or Referer header value, lowercased; null when it has none. */
export function hostOf(value: string | undefined | null): string | null {
  if (!value || value === 'null') return null;
  try {
    const host = new URL(value).hostname.toLowerCase();
    return host.replace(/^\[(.*)\]$/, '$1') || null;
  } catch {
    return null;
  }
}

const LOCALHOSTS = new Set(['localhost', '127.0.0.1', '::1']);
const isLocalhost = (host: string) => LOCALHOSTS.has(host) || host.endsWith('.localhost') || /^127\.\d+\.\d+\.\d+$/.test(host);

/** Accepts entries written as hosts ("app.example.com"), wildcards ("*.example.com") or origins. */
export function normalizeDomainEntry(entry: string): string {
  const trimmed = entry.trim().toLowerCase();
  const wildcard = trimmed.startsWith('*.');
  const rest = wildcard ? trimmed.slice(2) : trimmed;
  const host = rest.includes('://') ? (hostOf(rest) ?? rest) : rest.replace(/[:/].*$/, '');
  return (wildcard ? '*.' : '') + host.replace(/\.$/, '');
}

export function domainMatches(entry: string, host: string): boolean {
  const normalized = normalizeDomainEntry(entry);
  if (normalized.startsWith('*.')) {
    const base = normalized.slice(2);
    return host === base || host.endsWith(`.${base}`);
  }
  return host === normalized;
}

export type OriginVerdict = 'no-origin' | 'any' | 'allowed' | 'blocked';

/** Decides a request's origin (host from Origin, or Referer for the image proxy) against a domain list. */
export function checkOrigin(domains: readonly string[], originHeader: string | undefined | null): OriginVerdict {
  // Only a request with no Origin at all (server to server) passes a list; an opaque origin
  // ("null": sandboxed iframes, file: pages) could be any site, so it is a foreign one.
  if (!originHeader) return 'no-origin';
  if (domains.length === 0) return 'any';
  const host = hostOf(originHeader);
  if (host === null) return 'blocked';
  if (isLocalhost(host)) return 'allowed';
  return domains.some((d) => domainMatches(d, host)) ? 'allowed' : 'blocked';
}
