import { uuidFromName } from '../ids';
import { toJobView } from '../job-view';
import type { JobRecord, JobStore } from '../ports/job-store';
import type { GenerationQueue } from '../ports/queue';
import type { WebhookDeliveryStore } from '../ports/webhooks';

export interface WebhookNotifierDeps {
  jobStore: Pick<JobStore, 'get' | 'update'>;
  deliveries: Pick<WebhookDeliveryStore, 'subscribe' | 'claim' | 'pendingIds'>;
  /** The webhook queue: the job queue port on a queue of its own, its payload's jobId a delivery id. */
  queue: Pick<GenerationQueue, 'enqueue'>;
  now: () => Date;
  onError: (message: string, error: unknown) => void;
}

const isFinished = (job: JobRecord) => job.status === 'completed' || job.status === 'failed';

/** How long deliveries are retried, so a restart re-queues only those still worth trying. */
const RESUME_WINDOW_MS = 24 * 3600_000;

/**
 * Who is told when a job finishes (README, "Webhooks"). The caller that creates a job carries
 * its URL on the job record: nothing is written for it until the job finishes. A caller that
 * joins a job in flight (same request, single flight) records a subscription in the delivery log
 * instead. When the job finishes, `jobFinished` turns both into deliveries, each claimed once
 * however many processes call it, and queues them.
 */
export const createWebhookNotifier = (d: WebhookNotifierDeps) => {
  async function jobFinished(jobId: string): Promise<void> {
    try {
      const job = await d.jobStore.get(jobId);
      if (!job || !isFinished(job)) return;
      // Most jobs have no webhook: then finishing one costs no database write.
      if (!job.webhookUrl && !job.webhookSubscribers) return;
      const event = job.status as 'completed' | 'failed';
      const ids = await d.deliveries.claim({
        jobId,
        accountId: job.accountId,
        event,
        body: JSON.stringify(toJobView(job)),
        // Derived from the job, event and URL: a second claim of the same finish adds nothing.
        creator: job.webhookUrl ? { id: uuidFromName('webhook', `${jobId}\n${event}\n${job.webhookUrl}`), url: job.webhookUrl } : undefined,
      });
      for (const id of ids) await d.queue.enqueue({ v: 1, jobId: id });
    } catch (error) {
      // Never fails the job: a delivery claimed but not queued is re-queued when a worker starts.
      d.onError('could not queue webhook deliveries', error);
    }
  }

  return {
    /** Called once a job reads completed or failed. Never throws. */
    jobFinished,

    /** A caller that joined `job` (created by another request) asks for `url` to be told too. */
    async subscribe(job: JobRecord, url: string): Promise<void> {
      if (url === job.webhookUrl) return;
      await d.deliveries.subscribe({ id: uuidFromName('webhook-subscription', `${job.jobId}\n${url}`), accountId: job.accountId, jobId: job.jobId, url });
      await d.jobStore.update(job.jobId, { webhookSubscribers: true });
      // Finished between the join and the flag: its own jobFinished has run without it.
      const now = await d.jobStore.get(job.jobId);
      if (now && isFinished(now)) await jobFinished(job.jobId);
    },

    /** Queues the pending deliveries of the last day again (an embedded queue loses them on restart; BullMQ ignores known ids). */
    async resumePending(limit = 1000): Promise<number> {
      const ids = await d.deliveries.pendingIds(new Date(d.now().getTime() - RESUME_WINDOW_MS), limit);
      for (const id of ids) await d.queue.enqueue({ v: 1, jobId: id });
      return ids.length;
    },
  };
};

export type WebhookNotifier = ReturnType<typeof createWebhookNotifier>;
