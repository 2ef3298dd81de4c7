import { generateApiKey, hashApiKey, keyHint, type KeyKind } from '@promptpix/core';
import type { PrismaClient } from '../generated/client';

export const createApiKeyRepository = (prisma: PrismaClient) => ({
  /** Creates a key and returns it in clear: the only time it exists outside the caller's hands. */
  async create(accountId: string, input: { kind: KeyKind; name: string; domains: string[] }) {
    const key = generateApiKey(input.kind);
    const row = await prisma.apiKey.create({
      data: { accountId, kind: input.kind, name: input.name, domains: input.domains, hash: hashApiKey(key), hint: keyHint(key) },
    });
    return { id: row.id, key, kind: row.kind, name: row.name, domains: row.domains, hint: row.hint, createdAt: row.createdAt };
  },

  /** The live key with this hash and its account, or null (unknown or revoked). */
  async findActiveByHash(hash: string) {
    // The webhook secret stays out of the gateway's key cache: requests never need it.
    const row = await prisma.apiKey.findUnique({ where: { hash }, include: { account: { omit: { webhookSecret: true } } } });
    return row && !row.revokedAt ? row : null;
  },

  /** Returns false when no such key exists (or, given an account, none of that account's). */
  async revoke(id: string, accountId?: string): Promise<boolean> {
    const scope = { id, ...(accountId !== undefined && { accountId }) };
    const result = await prisma.apiKey.updateMany({ where: { ...scope, revokedAt: null }, data: { revokedAt: new Date() } });
    if (result.count > 0) return true;
    return (await prisma.apiKey.count({ where: scope })) > 0;
  },
  /** How many live keys an account holds. */
  countActive: (accountId: string) => prisma.apiKey.count({ where: { accountId, revokedAt: null } }),
  /** An account's live keys, newest first; never the hash. */
  listActive: (accountId: string) =>
    prisma.apiKey.findMany({
      where: { accountId, revokedAt: null },
      orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
      select: { id: true, kind: true, name: true, hint: true, domains: true, createdAt: true, lastUsedAt: true },
    }),
  /** Records when a key last authenticated a request (the caller throttles). */
  async touchLastUsed(id: string, at: Date): Promise<void> {
    await prisma.apiKey.updateMany({ where: { id }, data: { lastUsedAt: at } });
  },
});

export type ApiKeyRepository = ReturnType<typeof createApiKeyRepository>;
export type ApiKeyWithAccount = NonNullable<Awaited<ReturnType<ApiKeyRepository['findActiveByHash']>>>;
