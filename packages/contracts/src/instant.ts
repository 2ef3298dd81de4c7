/**
 * Whether PostgreSQL can take this instant as JavaScript writes it: it has no year 0, and reads
 * the six-digit years `toISOString` writes from 10000 on as something else.
 */
export function isStorableInstant(instant: Date): boolean {
  const year = instant.getUTCFullYear();
  return year >= 1 && year <= 9999;
}
