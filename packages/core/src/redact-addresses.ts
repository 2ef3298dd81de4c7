/**
 * Takes the addresses of internal services out of a text a caller will read (a failed job's
 * `error`, the failed-jobs list): URLs, IP addresses, `host:port` pairs, and the host names that
 * Node's and Prisma's connection errors name. The worker's log keeps the full error.
 */
const ADDRESS = '<address>';

const PATTERNS: RegExp[] = [
  // Any URL (scheme://…), credentials and path included.
  /\b[a-z][a-z0-9+.-]*:\/\/[^\s'"`<>()[\]{}]+/gi,
  // Prisma: "Can't reach database server at `db.internal`:`5432`".
  /`[^`\s]+`:`\d+`/g,
  // A bracketed IPv6 address, with or without a port.
  /\[[0-9a-f:.]*:[0-9a-f:.]*\](?::\d{1,5})?/gi,
  // A bare IPv6 address: one with "::", or eight groups (times such as 12:30:45 have three).
  /(?<![\w:])(?:[0-9a-f]{0,4}:){1,7}:(?:[0-9a-f]{0,4}:){0,6}[0-9a-f]{0,4}(?![\w:])(?:%\w+)?/gi,
  /(?<![\w:])(?:[0-9a-f]{1,4}:){7}[0-9a-f]{1,4}(?![\w:])/gi,
  // An IPv4 address, with or without a port.
  /\b\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?\b/g,
  // The AWS SDK: "Inaccessible host: `minio.storage.svc' at port `9000'".
  /Inaccessible host: `[^`'\s]+'(?: at port `[^`'\s]*')?/g,
  // host:port: a name with a letter in it, and a port number that ends there (not a time: 12:30:45).
  /(?<![\w.:-])(?=[a-z0-9.-]*[a-z])[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*:\d{1,5}(?![\d:]|\.\d)/gi,
  // Name resolution and routing errors name the host: "getaddrinfo ENOTFOUND gpu-box".
  /\b(?<code>ENOTFOUND|EAI_AGAIN|EAI_FAIL|EAI_NONAME|EHOSTUNREACH|ENETUNREACH|EHOSTDOWN)\s+(?!<address>)[^\s,;:'"`)]+/g,
];

export function redactAddresses(text: string): string {
  let out = text;
  for (const pattern of PATTERNS)
    out = out.replace(pattern, (_match, ...rest) => {
      const groups = rest.at(-1) as { code?: string } | undefined;
      return groups?.code ? `${groups.code} ${ADDRESS}` : ADDRESS;
    });
  return out;
}
