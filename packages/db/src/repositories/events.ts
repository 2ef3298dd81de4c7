import { randomUUID } from 'node:crypto';
import type { PrismaClient } from '../generated/client';
import type { SqlClient } from '../sql';

export interface NewEvent {
  accountId: string;
  eventType: string;
  imageId?: string | null;
  metadata?: Record<string, unknown> | null;
  createdAt?: Date;
  /** Identical events this row stands for (the recorder coalesces them); 1 when absent. */
  count?: number;
}

/** The event types the dashboard's usage counts per day. */
export const DAILY_EVENT_TYPES = ['generate', 'cache_hit', 'impression', 'click'] as const;
export type DailyEventType = (typeof DAILY_EVENT_TYPES)[number];

export const createEventRepository = (prisma: PrismaClient, sql: SqlClient) => ({
  export: (accountId: string, from: Date, to: Date) => eventsForExport(prisma, accountId, from, to),
  /**
   * Counts of the dashboard's event types per UTC day from `from` to `to` (YYYY-MM-DD, both
   * inclusive): one GROUP BY; days without events are absent.
   */
  dailyCounts: (accountId: string, from: string, to: string) =>
    sql.query<{ day: string; eventType: DailyEventType; count: number }>(
      `SELECT to_char("createdAt", 'YYYY-MM-DD') AS "day", "eventType", sum("count")::int AS "count"
       FROM "AnalyticsEvent"
       WHERE "accountId" = $1 AND "createdAt" >= $2::date AND "createdAt" < ($3::date + 1) AND "eventType" = ANY($4::text[])
       GROUP BY 1, 2`,
      [accountId, from, to, DAILY_EVENT_TYPES],
    ),

  /**
   * One INSERT for the whole batch, sent as one JSON parameter: one native JSON.stringify instead
   * of the driver escaping every element of per-column arrays. A JSON null becomes SQL NULL.
   * Plain SQL (sql.ts): an embed batch of cached prompts records 50 events.
   */
  async insertMany(events: NewEvent[]): Promise<number> {
    if (events.length === 0) return 0;
    const now = new Date();
    // A batch's events mostly share a millisecond: format each instant once.
    let lastMs = NaN;
    let lastIso = '';
    const iso = (d: Date) => {
      if (d.getTime() !== lastMs) [lastMs, lastIso] = [d.getTime(), d.toISOString()];
      return lastIso;
    };
    if (sql.copyRows) {
      // createdAt is a timestamp without zone holding UTC: the ISO string's "Z" is ignored on input.
      const records = events.map((e) => [
        randomUUID(),
        e.accountId,
        e.eventType,
        e.imageId ?? null,
        e.metadata ? JSON.stringify(e.metadata) : null,
        iso(e.createdAt ?? now),
        String(e.count ?? 1),
      ]);
      return sql.copyRows('AnalyticsEvent', ['id', 'accountId', 'eventType', 'imageId', 'metadata', 'createdAt', 'count'], records);
    }
    const rows = events.map((e) => ({
      account: e.accountId,
      type: e.eventType,
      image: e.imageId ?? null,
      meta: e.metadata ?? null,
      created: iso(e.createdAt ?? now),
      count: e.count ?? 1,
    }));
    return sql.execute(
      `INSERT INTO "AnalyticsEvent" ("id", "accountId", "eventType", "imageId", "metadata", "createdAt", "count")
       SELECT gen_random_uuid(), t.account, t.type, t.image, t.meta, (t.created AT TIME ZONE 'UTC'), t.count
       FROM jsonb_to_recordset($1::jsonb) AS t(account uuid, type text, image uuid, meta jsonb, created timestamptz, count int)`,
      [JSON.stringify(rows)],
    );
  },
});

export type EventRepository = ReturnType<typeof createEventRepository>;

/** Events of one account in [from, to), oldest first, read in pages so exports stream. */
export async function* eventsForExport(prisma: PrismaClient, accountId: string, from: Date, to: Date, pageSize = 1000) {
  let cursor: { createdAt: Date; id: string } | null = null;
  for (;;) {
    const page: Array<{ id: string; createdAt: Date; eventType: string; imageId: string | null; metadata: unknown; count: number }> =
      await prisma.analyticsEvent.findMany({
        where: {
          accountId,
          createdAt: { gte: from, lt: to },
          ...(cursor ? { OR: [{ createdAt: { gt: cursor.createdAt } }, { createdAt: cursor.createdAt, id: { gt: cursor.id } }] } : {}),
        },
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
        take: pageSize,
        select: { id: true, createdAt: true, eventType: true, imageId: true, metadata: true, count: true },
      });
    yield* page;
    if (page.length < pageSize) return;
    cursor = page[page.length - 1];
  }
}
