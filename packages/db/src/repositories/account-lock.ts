import type { Prisma } from '../generated/client';

/**
 * Serialises one kind of per-account change until the transaction ends (a transaction-level
 * advisory lock, so the Account row itself stays free for quota updates): a count-then-insert
 * under it cannot be passed by a concurrent one.
 */
export async function lockAccountFor(tx: Prisma.TransactionClient, purpose: 'keys' | 'characters' | 'uploads', accountId: string): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`${purpose}:${accountId}`}, 0))`;
}
