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
  async insertMany(events: NewEvent[]): Promise<number> {
    const result = await prisma.analyticsEvent.createMany({
      data: events.map((e) => ({ ...e, metadata: (e.metadata ?? undefined) as Prisma.InputJsonValue | undefined })),
    });
    return result.count;
  },
});

export type EventRepository = ReturnType<typeof createEventRepository>;
