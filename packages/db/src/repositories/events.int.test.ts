import type { Database } from '../client';
import { bothDatabases } from '../testing';
import { createEventRepository } from './events';

describe.each(bothDatabases)('analytics event batches (%s)', (_name, open) => {
  let db: Database;
  let cleanup: () => Promise<void>;
  beforeAll(async () => ({ db, cleanup } = await open()));
  afterAll(() => cleanup());

  it('stores every event of a batch as sent: awkward text, nulls, instants', async () => {
    const events = createEventRepository(db.prisma, db.sql);
    const account = await db.prisma.account.create({ data: { handle: 'events', email: 'events@example.com' } });
    const image = await db.prisma.image.create({
      data: {
        accountId: account.id,
        prompt: 'p',
        normalizedPrompt: 'p',
        width: 256,
        height: 256,
        format: 'png',
        seed: 1n,
        storageKey: 'images/e.png',
        bytes: 1,
      },
    });
    const awkward = {
      quote: 'say "hi", then, leave',
      lines: 'one\ntwo\r\nthree',
      slash: 'C:\\path\\n',
      unicode: 'café ☕ 𝄞',
      empty: '',
      nested: { list: [1, null, 'x,y'] },
    };
    const at = new Date('2026-11-24T12:34:56.789Z');
    const written = await events.insertMany([
      { accountId: account.id, eventType: 'cache_hit', imageId: image.id, metadata: awkward, createdAt: at },
      { accountId: account.id, eventType: 'view', imageId: null, metadata: null, createdAt: at },
      ...Array.from({ length: 200 }, (_, i) => ({ accountId: account.id, eventType: 'impression', metadata: { i }, createdAt: new Date(at.getTime() + i) })),
    ]);
    expect(written).toBe(202);
    const rows = await db.sql.query<{ eventType: string; imageId: string | null; metadata: unknown; createdAt: string }>(
      `SELECT "eventType", "imageId", "metadata", to_char("createdAt", 'YYYY-MM-DD"T"HH24:MI:SS.MS') AS "createdAt" FROM "AnalyticsEvent" WHERE "accountId" = $1 ORDER BY "createdAt", "eventType"`,
      [account.id],
    );
    expect(rows).toHaveLength(202);
    expect(rows.find((r) => r.eventType === 'cache_hit')).toEqual({
      eventType: 'cache_hit',
      imageId: image.id,
      metadata: awkward,
      createdAt: '2026-11-24T12:34:56.789',
    });
    expect(rows.find((r) => r.eventType === 'view')).toEqual({ eventType: 'view', imageId: null, metadata: null, createdAt: '2026-11-24T12:34:56.789' });
    expect(rows.filter((r) => r.eventType === 'impression').map((r) => (r.metadata as { i: number }).i)).toEqual(Array.from({ length: 200 }, (_, i) => i));
  });

  it('a row counting several identical events: stored with its count, exported with it, summed by the daily counts', async () => {
    const events = createEventRepository(db.prisma, db.sql);
    const account = await db.prisma.account.create({ data: { handle: 'counted', email: 'counted@example.com' } });
    const at = new Date('2026-11-24T08:00:00.000Z');
    await events.insertMany([
      { accountId: account.id, eventType: 'cache_hit', metadata: { via: 'embed' }, createdAt: at, count: 40 },
      { accountId: account.id, eventType: 'cache_hit', metadata: { via: 'render' }, createdAt: at },
      { accountId: account.id, eventType: 'click', createdAt: at, count: 3 },
    ]);
    const exported = [];
    for await (const e of events.export(account.id, new Date('2026-11-24T00:00:00Z'), new Date('2026-11-25T00:00:00Z'))) exported.push(e);
    expect(exported.map((e) => [e.eventType, e.count]).sort()).toEqual([
      ['cache_hit', 1],
      ['cache_hit', 40],
      ['click', 3],
    ]);
    expect(await events.dailyCounts(account.id, '2026-11-24', '2026-11-24')).toEqual(
      expect.arrayContaining([
        { day: '2026-11-24', eventType: 'cache_hit', count: 41 },
        { day: '2026-11-24', eventType: 'click', count: 3 },
      ]),
    );
  });

  it('a batch with a row the table refuses stores none of it and says so', async () => {
    const events = createEventRepository(db.prisma, db.sql);
    const account = await db.prisma.account.create({ data: { handle: 'refused', email: 'refused@example.com' } });
    await expect(
      events.insertMany([
        { accountId: account.id, eventType: 'view' },
        { accountId: '00000000-0000-4000-8000-000000000000', eventType: 'view' },
      ]),
    ).rejects.toThrow();
    expect(await db.prisma.analyticsEvent.count({ where: { accountId: account.id } })).toBe(0);
  });
});
