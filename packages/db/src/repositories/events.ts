import type { PrismaClient } from '../generated/client';
import type { Prisma } from '../generated/client';

export interface NewEvent {
  accountId: string;
  eventType: string;
  imageId?: string | null;
  metadata?: Record<string, unknown> | null;
  createdAt?: Date;
}

export const createEventRepository = (prisma: PrismaClient) => ({
  /** One INSERT for the whole batch. */
  export: (accountId: string, from: Date, to: Date) => eventsForExport(prisma, accountId, from, to),

  async insertMany(events: NewEvent[]): Promise<number> {
    const result = await prisma.analyticsEvent.createMany({
      data: events.map((e) => ({ ...e, metadata: (e.metadata ?? undefined) as Prisma.InputJsonValue | undefined })),
    });
    return result.count;
  },
});

export type EventRepository = ReturnType<typeof createEventRepository>;

/** Events of one account in [from, to), oldest first, read in pages so exports stream. */
export async function* eventsForExport(prisma: PrismaClient, accountId: string, from: Date, to: Date, pageSize = 1000) {
  let cursor: { createdAt: Date; id: string } | null = null;
  for (;;) {
    const page: Array<{ id: string; createdAt: Date; eventType: string; imageId: string | null; metadata: unknown }> = await prisma.analyticsEvent.findMany({
      where: {
        accountId,
        createdAt: { gte: from, lt: to },
        ...(cursor ? { OR: [{ createdAt: { gt: cursor.createdAt } }, { createdAt: cursor.createdAt, id: { gt: cursor.id } }] } : {}),
      },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      take: pageSize,
      select: { id: true, createdAt: true, eventType: true, imageId: true, metadata: true },
    });
    yield* page;
    if (page.length < pageSize) return;
    cursor = page[page.length - 1];
  }
}
