/**
 * Recognises errors that mean "a dependency (Redis, PostgreSQL, the queue) is unreachable right
 * now", so the caller gets a fast 503 with Retry-After instead of a 500. Matched by name, code
 * and message because they come from several client libraries.
 */
const OUTAGE_NAMES = new Set(['QueueUnavailableError', 'MaxRetriesPerRequestError']);
const OUTAGE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'P1001',
  'P1002',
  'P1017',
  '57P01',
  '57P03',
  '53300',
]);
const OUTAGE_MESSAGES = [
  /enableOfflineQueue/i,
  /Connection is closed/i,
  /Stream isn't writeable/i,
  /Connection terminated/i,
  /terminating connection/i,
  /does not allow connections/i,
  /not currently accepting connections/i,
  /Can't reach database server/i,
  /connect ECONNREFUSED/i,
  /too many clients/i,
  /Server has closed the connection/i,
];

export function isDependencyOutage(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 4) return false;
  const e = error as { name?: string; code?: string; message?: string; cause?: unknown; kind?: string; originalCode?: string };
  if (e.name && OUTAGE_NAMES.has(e.name)) return true;
  if ((e.code && OUTAGE_CODES.has(e.code)) || (e.originalCode && OUTAGE_CODES.has(e.originalCode))) return true;
  if (e.message && OUTAGE_MESSAGES.some((re) => re.test(e.message!))) return true;
  return isDependencyOutage(e.cause, depth + 1);
}
