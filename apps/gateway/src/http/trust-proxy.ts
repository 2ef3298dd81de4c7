/**
 * TRUST_PROXY as Express's `trust proxy` setting: `true`/`false`, a hop count, or addresses and
 * subnets (`loopback`, `10.0.0.0/8, 172.16.0.0/12`). Only then does `req.ip` come from
 * X-Forwarded-For; without it a forged header cannot pick the client IP.
 */
export function trustProxySetting(value: string): boolean | number | string[] {
  const trimmed = value.trim();
  if (trimmed === 'true') return true;
  if (trimmed === 'false') return false;
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  return trimmed
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
}
