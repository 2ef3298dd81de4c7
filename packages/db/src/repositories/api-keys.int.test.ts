import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type Database } from '../client';
import { bothDatabases, type OpenedTestDatabase } from '../testing';
import { copyMigratedPGlite } from '../testing';
import { hashApiKey } from '@promptpix/core';
import { createApiKeyRepository } from './api-keys';

/** The embedded shape with EMBEDDED_DATABASE_THREAD=on: rows cross from PGlite's own thread. */
const pgliteOnItsThread: [name: string, open: () => Promise<OpenedTestDatabase>] = [
  'pglite on its thread',
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'promptpix-pglite-'));
    const dataDir = join(dir, 'db');
    await copyMigratedPGlite(dataDir);
    const db = await openDatabase({ kind: 'pglite', dataDir, thread: true });
    return {
      db,
      cleanup: async () => {
        await db.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
];

describe.each([...bothDatabases, pgliteOnItsThread])('authentication read of a key (%s)', (_name, open) => {
  let db: Database;
  let cleanup: () => Promise<void>;
  beforeAll(async () => ({ db, cleanup } = await open()));
  afterAll(() => cleanup());

  /** What Prisma read before the statement was written by hand: the key, its account without the webhook secret. */
  const throughPrisma = (hash: string) => db.prisma.apiKey.findUnique({ where: { hash }, include: { account: { omit: { webhookSecret: true } } } });

  it('answers the live key and its account field for field as Prisma does, without the webhook secret', async () => {
    const keys = createApiKeyRepository(db.prisma, db.sql);
    const account = await db.prisma.account.create({
      data: {
        handle: 'reader',
        email: 'reader@example.com',
        plan: 'pro',
        status: 'approved',
        monthlyGenerations: 250,
        quotaUsed: 7,
        quotaPeriodStart: new Date('2026-11-01T10:20:30.456Z'),
        webhookSecret: 'whsec_never_read',
      },
    });
    const secret = await keys.create(account.id, { kind: 'secret', name: 'server', domains: [] });
    const publishable = await keys.create(account.id, {
      kind: 'publishable',
      name: 'pages',
      domains: ['example.com', '*.example.org'],
      budgetClientPerHour: 5,
      budgetKeyPerDay: null,
      signedPrompts: true,
    });
    await keys.touchLastUsed(publishable.id, new Date('2026-11-20T01:02:03.004Z'));
    await keys.recordBudgetHit(publishable.id, new Date('2026-11-21T05:06:07.089Z'));

    for (const created of [secret, publishable]) {
      const hash = hashApiKey(created.key);
      const read = await keys.findActiveByHash(hash);
      expect(read).toEqual(await throughPrisma(hash));
      expect(read?.account).not.toHaveProperty('webhookSecret');
      expect(read?.account).toMatchObject({ id: account.id, plan: 'pro', status: 'approved', quotaUsed: 7, monthlyGenerations: 250 });
      expect(read?.account.quotaPeriodStart.toISOString()).toBe('2026-11-01T10:20:30.456Z');
    }
    const read = await keys.findActiveByHash(hashApiKey(publishable.key));
    expect(read).toMatchObject({
      kind: 'publishable',
      domains: ['example.com', '*.example.org'],
      budgetClientPerHour: 5,
      budgetKeyPerDay: null,
      signedPrompts: true,
      revokedAt: null,
    });
    expect(read?.lastUsedAt?.toISOString()).toBe('2026-11-20T01:02:03.004Z');
    expect(read?.budgetHitAt?.toISOString()).toBe('2026-11-21T05:06:07.089Z');
  });

  it('answers null for an unknown or a revoked key', async () => {
    const keys = createApiKeyRepository(db.prisma, db.sql);
    const account = await db.prisma.account.create({ data: { handle: 'revoker', email: 'revoker@example.com', status: 'approved' } });
    const created = await keys.create(account.id, { kind: 'secret', name: 'old', domains: [] });
    expect(await keys.findActiveByHash(hashApiKey(created.key))).not.toBeNull();
    expect(await keys.revoke(created.id)).toBe(true);
    expect(await keys.findActiveByHash(hashApiKey(created.key))).toBeNull();
    expect(await keys.findActiveByHash(hashApiKey('sk_live_unknown'))).toBeNull();
  });
});
