import { generateApiKey, hashApiKey, keyHint, newSigningSecret, type KeyKind } from '@promptpix/core';
import type { Prisma, PrismaClient } from '../generated/client';
import type { SqlClient } from '../sql';
import { lockAccountFor } from './account-lock';

type NewKeyInput = { kind: KeyKind; name: string; domains: string[] } & Partial<KeyLimits>;

async function insertKey(db: Prisma.TransactionClient, accountId: string, input: NewKeyInput) {
  const key = generateApiKey(input.kind);
  const row = await db.apiKey.create({
    data: { accountId, ...input, hash: hashApiKey(key), hint: keyHint(key), signingSecret: input.kind === 'publishable' ? newSigningSecret() : null },
  });
  return { id: row.id, key, kind: row.kind, name: row.name, domains: row.domains, hint: row.hint, createdAt: row.createdAt };
}

/** A key's own limits (docs/api/embed.md): budgets (null: the service default) and signed mode. */
export interface KeyLimits {
  budgetClientPerHour: number | null;
  budgetClientPerDay: number | null;
  budgetKeyPerHour: number | null;
  budgetKeyPerDay: number | null;
  signedPrompts: boolean;
}

const keyView = {
  id: true,
  kind: true,
  name: true,
  hint: true,
  domains: true,
  createdAt: true,
  lastUsedAt: true,
  budgetClientPerHour: true,
  budgetClientPerDay: true,
  budgetKeyPerHour: true,
  budgetKeyPerDay: true,
  budgetHitAt: true,
  signedPrompts: true,
  signingSecret: true,
} as const;

/** A live key with its account, as authentication reads it: the account without its webhook secret. */
export type ApiKeyWithAccount = Prisma.ApiKeyGetPayload<{ include: { account: { omit: { webhookSecret: true } } } }>;

/**
 * The key and its account in one joined statement through `SqlClient`. Through Prisma the same read
 * was two statements (the key, then its account) and Prisma's query compiler: about 11% of the
 * gateway's CPU in the enqueue profile, where 96 keys are re-read as their 10 s cache entries
 * expire (docs/performance.md, "Enqueue and the embedded shape"). Timestamps are read as UTC
 * instants (sql.ts); enums as text.
 */
const FIND_ACTIVE_BY_HASH = `
  SELECT k."id", k."accountId", k."kind"::text AS "kind", k."name", k."hash", k."hint", k."domains",
         (k."revokedAt" AT TIME ZONE 'UTC') AS "revokedAt", (k."createdAt" AT TIME ZONE 'UTC') AS "createdAt",
         (k."lastUsedAt" AT TIME ZONE 'UTC') AS "lastUsedAt",
         k."budgetClientPerHour", k."budgetClientPerDay", k."budgetKeyPerHour", k."budgetKeyPerDay",
         (k."budgetHitAt" AT TIME ZONE 'UTC') AS "budgetHitAt", k."signedPrompts", k."signingSecret",
         a."handle" AS "a_handle", a."email" AS "a_email", a."plan"::text AS "a_plan", a."status"::text AS "a_status",
         a."monthlyGenerations" AS "a_monthlyGenerations", a."quotaUsed" AS "a_quotaUsed",
         (a."quotaPeriodStart" AT TIME ZONE 'UTC') AS "a_quotaPeriodStart",
         (a."createdAt" AT TIME ZONE 'UTC') AS "a_createdAt", (a."updatedAt" AT TIME ZONE 'UTC') AS "a_updatedAt"
  FROM "ApiKey" k JOIN "Account" a ON a."id" = k."accountId"
  WHERE k."hash" = $1 AND k."revokedAt" IS NULL`;

type KeyRow = Omit<ApiKeyWithAccount, 'account'> & {
  a_handle: string;
  a_email: string;
  a_plan: ApiKeyWithAccount['account']['plan'];
  a_status: ApiKeyWithAccount['account']['status'];
  a_monthlyGenerations: number | null;
  a_quotaUsed: number;
  a_quotaPeriodStart: Date;
  a_createdAt: Date;
  a_updatedAt: Date;
};

const keyWithAccount = (r: KeyRow): ApiKeyWithAccount => ({
  id: r.id,
  accountId: r.accountId,
  kind: r.kind,
  name: r.name,
  hash: r.hash,
  hint: r.hint,
  domains: r.domains,
  revokedAt: r.revokedAt,
  createdAt: r.createdAt,
  lastUsedAt: r.lastUsedAt,
  budgetClientPerHour: r.budgetClientPerHour,
  budgetClientPerDay: r.budgetClientPerDay,
  budgetKeyPerHour: r.budgetKeyPerHour,
  budgetKeyPerDay: r.budgetKeyPerDay,
  budgetHitAt: r.budgetHitAt,
  signedPrompts: r.signedPrompts,
  signingSecret: r.signingSecret,
  account: {
    id: r.accountId,
    handle: r.a_handle,
    email: r.a_email,
    plan: r.a_plan,
    status: r.a_status,
    monthlyGenerations: r.a_monthlyGenerations,
    quotaUsed: r.a_quotaUsed,
    quotaPeriodStart: r.a_quotaPeriodStart,
    createdAt: r.a_createdAt,
    updatedAt: r.a_updatedAt,
  },
});

export const createApiKeyRepository = (prisma: PrismaClient, sql: SqlClient) => ({
  /**
   * Creates a key and returns it in clear: the only time it exists outside the caller's hands. A
   * publishable key gets a signing secret for signed mode.
   */
  async create(accountId: string, input: NewKeyInput) {
    return insertKey(prisma, accountId, input);
  },

  /**
   * Creates a key unless the account already holds `maxLive` live keys (null then). The count and
   * the insert run under a per-account lock, so concurrent creates never pass the cap together.
   */
  createWithin(accountId: string, input: NewKeyInput, maxLive: number) {
    return prisma.$transaction(async (tx) => {
      await lockAccountFor(tx, 'keys', accountId);
      if ((await tx.apiKey.count({ where: { accountId, revokedAt: null } })) >= maxLive) return null;
      return insertKey(tx, accountId, input);
    });
  },

  /** Sets a key's limits; null when no such live key (of that account, given one). */
  async updateLimits(id: string, patch: Partial<KeyLimits>, accountId?: string) {
    const where = { id, revokedAt: null, ...(accountId !== undefined && { accountId }) };
    // A publishable key made before signed mode existed gets its secret when the mode is turned on.
    if (patch.signedPrompts)
      await prisma.apiKey.updateMany({ where: { ...where, kind: 'publishable', signingSecret: null }, data: { signingSecret: newSigningSecret() } });
    const result = await prisma.apiKey.updateMany({ where, data: patch });
    return result.count > 0 ? prisma.apiKey.findUnique({ where: { id }, select: keyView }) : null;
  },

  /**
   * Rotation in one transaction: a new key with the old one's name, domains, limits and signing
   * secret (signed pages keep working), and the old one revoked. Null when no such live key.
   */
  async rotate(id: string, accountId?: string) {
    return prisma.$transaction(async (tx) => {
      const where = { id, revokedAt: null, ...(accountId !== undefined && { accountId }) };
      const old = await tx.apiKey.findFirst({ where });
      if (!old) return null;
      const revoked = await tx.apiKey.updateMany({ where, data: { revokedAt: new Date() } });
      if (revoked.count === 0) return null;
      const key = generateApiKey(old.kind);
      const { budgetClientPerHour, budgetClientPerDay, budgetKeyPerHour, budgetKeyPerDay, signedPrompts, signingSecret } = old;
      const row = await tx.apiKey.create({
        data: {
          accountId: old.accountId,
          kind: old.kind,
          name: old.name,
          domains: old.domains,
          hash: hashApiKey(key),
          hint: keyHint(key),
          budgetClientPerHour,
          budgetClientPerDay,
          budgetKeyPerHour,
          budgetKeyPerDay,
          signedPrompts,
          signingSecret,
        },
      });
      return {
        id: row.id,
        key,
        kind: row.kind,
        name: row.name,
        domains: row.domains,
        hint: row.hint,
        createdAt: row.createdAt,
        replaced: old.id,
        accountId: old.accountId,
      };
    });
  },

  /** Notes when a budget last refused a key's generation (the caller throttles). */
  async recordBudgetHit(id: string, at: Date): Promise<void> {
    await prisma.apiKey.updateMany({ where: { id }, data: { budgetHitAt: at } });
  },

  /** The live key with this hash and its account, or null (unknown or revoked). */
  async findActiveByHash(hash: string): Promise<ApiKeyWithAccount | null> {
    // The webhook secret stays out of the gateway's key cache: requests never need it.
    const [row] = await sql.query<KeyRow>(FIND_ACTIVE_BY_HASH, [hash]);
    return row ? keyWithAccount(row) : null;
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
      select: keyView,
    }),
  /** Records when a key last authenticated a request (the caller throttles). */
  async touchLastUsed(id: string, at: Date): Promise<void> {
    await prisma.apiKey.updateMany({ where: { id }, data: { lastUsedAt: at } });
  },
});

export type ApiKeyRepository = ReturnType<typeof createApiKeyRepository>;
