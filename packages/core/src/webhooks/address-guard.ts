import ipaddr from 'ipaddr.js';

/**
 * The SSRF guard's rule (README, "Webhooks"): a webhook may only reach a public unicast address.
 * Returns why an address is refused, or null when it may be called. Everything ipaddr.js does not
 * class as plain `unicast` is refused: loopback, RFC 1918, link-local (cloud metadata at
 * 169.254.169.254), CGNAT, unique-local, multicast, broadcast, unspecified, documentation and
 * reserved ranges, and IPv6 forms that carry an IPv4 address (mapped, NAT64, 6to4, Teredo).
 */
export function addressRefusal(address: string): string | null {
  if (!ipaddr.isValid(address)) return `not an IP address: ${address}`;
  let parsed = ipaddr.parse(address);
  // ::ffff:10.0.0.1 reaches 10.0.0.1: judge the IPv4 address inside.
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  const range = parsed.range();
  if (range !== 'unicast') return `${describe(range)} address ${parsed.toString()}`;
  // Deprecated IPv4-compatible IPv6 (::a.b.c.d): ipaddr.js calls it unicast, but it names an IPv4 host.
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).parts.slice(0, 6).every((p) => p === 0)) return `IPv4-compatible address ${parsed.toString()}`;
  return null;
}

const NAMES: Record<string, string> = {
  loopback: 'loopback',
  private: 'private',
  linkLocal: 'link-local',
  carrierGradeNat: 'carrier-grade NAT',
  uniqueLocal: 'unique-local',
  unspecified: 'unspecified',
  multicast: 'multicast',
  broadcast: 'broadcast',
  reserved: 'reserved',
};

const describe = (range: string) => NAMES[range] ?? `non-public (${range})`;

/**
 * What can be told of a webhook URL before any DNS lookup: a literal IP address is judged by
 * `addressRefusal`, and `localhost` (with its `.localhost` subdomains, RFC 6761) is loopback.
 * Other names are judged when they are resolved, at delivery. Null when nothing is refused yet.
 */
export function webhookUrlRefusal(webhookUrl: string): string | null {
  let hostname: string;
  try {
    hostname = new URL(webhookUrl).hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  } catch {
    return 'not a URL';
  }
  if (ipaddr.isValid(hostname)) return addressRefusal(hostname);
  if (hostname === 'localhost' || hostname.endsWith('.localhost')) return `loopback name ${hostname}`;
  return null;
}
