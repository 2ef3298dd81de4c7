import { generateApiKey, hashApiKey, keyHint, type KeyKind } from '@promptpix/core';
import type { PrismaClient } from '../generated/client';

export const createApiKeyRepository = (prisma: PrismaClient) => ({
  /** Creates a key and returns it in clear: the only time it exists outside the caller's hands. */
  async create(accountId: string, input: { kind: KeyKind; name: string; domains: string[] }) {
    const key = generateApiKey(input.kind);
    const row = await prisma.apiKey.create({
      data: { accountId, kind: input.kind, name: input.name, domains: input.domains, hash: hashApiKey(key), hint: keyHint(key) },
    });
    return { id: row.id, key, kind: row.kind, name: row.name, domains: row.domains };
  },

  /** The live key with this hash and its account, or null (unknown or revoked). */
  async findActiveByHash(hash: string) {
    const row = await prisma.apiKey.findUnique({ where: { hash }, include: { account: true } });
    return row && !row.revokedAt ? row : null;
  },

  /** Returns false when no such key exists. */
  async revoke(id: string): Promise<boolean> {
    const result = await prisma.apiKey.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: new Date() } });
    if (result.count > 0) return true;
    return (await prisma.apiKey.count({ where: { id } })) > 0;
  },
});

export type ApiKeyRepository = ReturnType<typeof createApiKeyRepository>;
export type ApiKeyWithAccount = NonNullable<Awaited<ReturnType<ApiKeyRepository['findActiveByHash']>>>;
