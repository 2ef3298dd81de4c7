import type { GenerationRequest } from '@promptpix/contracts';
import type { Prisma, PrismaClient } from '../generated/client';

export interface NewFailedJob {
  jobId: string;
  accountId: string;
  model: string;
  reason: string;
  request: GenerationRequest;
  createdAt: Date;
  failedAt: Date;
}

export interface FailedJobQuery {
  accountId?: string;
  model?: string;
  /** Failed at or after this instant. */
  since?: Date;
  /** The last row of the previous page: this page holds older ones. */
  cursor?: { failedAt: Date; jobId: string };
  limit: number;
}

export interface FailedJobRow {
  jobId: string;
  accountId: string;
  handle: string;
  model: string;
  reason: string;
  request: GenerationRequest;
  createdAt: Date;
  failedAt: Date;
  retriedAs: string | null;
  retriedAt: Date | null;
}

const select = {
  jobId: true,
  accountId: true,
  model: true,
  reason: true,
  request: true,
  createdAt: true,
  failedAt: true,
  retriedAs: true,
  retriedAt: true,
  account: { select: { handle: true } },
} as const;
type Selected = Prisma.FailedJobGetPayload<{ select: typeof select }>;
const rowOf = ({ account, request, ...row }: Selected): FailedJobRow => ({ ...row, handle: account.handle, request: request as unknown as GenerationRequest });

/**
 * Jobs that failed for good (docs/operating/models.md, "Failed jobs"): written by the worker when a
 * job ends failed, listed for operators and the account's dashboard, kept `retentionDays`.
 */
export const createFailedJobRepository = (prisma: PrismaClient, options: { retentionDays: number; now?: () => Date }) => {
  const now = options.now ?? (() => new Date());
  return {
    /** Idempotent by job id (a worker that dies after writing may write it again). */
    async record(job: NewFailedJob): Promise<void> {
      const data = { ...job, request: job.request as unknown as Prisma.InputJsonValue };
      await prisma.failedJob.upsert({ where: { jobId: job.jobId }, create: data, update: {} });
    },

    /** Newest first, keyset-paged. */
    async list(q: FailedJobQuery): Promise<FailedJobRow[]> {
      const rows = await prisma.failedJob.findMany({
        where: {
          ...(q.accountId && { accountId: q.accountId }),
          ...(q.model && { model: q.model }),
          ...(q.since && { failedAt: { gte: q.since } }),
          ...(q.cursor && { OR: [{ failedAt: { lt: q.cursor.failedAt } }, { failedAt: q.cursor.failedAt, jobId: { gt: q.cursor.jobId } }] }),
        },
        orderBy: [{ failedAt: 'desc' }, { jobId: 'asc' }],
        take: q.limit,
        select,
      });
      return rows.map(rowOf);
    },

    async find(jobId: string): Promise<FailedJobRow | null> {
      const row = await prisma.failedJob.findUnique({ where: { jobId }, select });
      return row && rowOf(row);
    },

    /** Claims the one retry of a failed job: false when it was retried already (or is gone). */
    async claimRetry(jobId: string, placeholder: string): Promise<boolean> {
      return (await prisma.failedJob.updateMany({ where: { jobId, retriedAs: null }, data: { retriedAs: placeholder, retriedAt: now() } })).count === 1;
    },

    /** Records the job a claimed retry started (or, with null, gives the claim back when none started). */
    async settleRetry(jobId: string, placeholder: string, retriedAs: string | null): Promise<void> {
      await prisma.failedJob.updateMany({ where: { jobId, retriedAs: placeholder }, data: retriedAs ? { retriedAs } : { retriedAs: null, retriedAt: null } });
    },

    /** Deletes rows past the retention window; how many. */
    async prune(at: Date = now()): Promise<number> {
      const before = new Date(at.getTime() - options.retentionDays * 86_400_000);
      return (await prisma.failedJob.deleteMany({ where: { failedAt: { lt: before } } })).count;
    },
  };
};

export type FailedJobRepository = ReturnType<typeof createFailedJobRepository>;
