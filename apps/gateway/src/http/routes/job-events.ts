import { Router, type Request, type Response } from 'express';
import { AppError, type JobRecord } from '@promptpix/core';
import { ErrorMessages, type JobProgressEvent } from '@promptpix/contracts';
import type { GatewayDeps } from '../../deps';
import { authenticate, authOf } from '../middleware/auth';
import { JOB_ID, toJobView } from './jobs';

type Deps = Pick<GatewayDeps, 'credentials' | 'jobStore' | 'logger' | 'openStreams' | 'queue'>;

/**
 * How often an open stream reads the job (one job store read; the queue position too while
 * queued). Reading beats a push from the worker here: a queued job's position moves when
 * other jobs move, which no change to its own record would announce.
 */
const TICK_MS = 500;
const HEARTBEAT_MS = 15_000;
/** Nothing streams for longer; a client that still waits reconnects or polls. */
const MAX_STREAM_MS = 10 * 60_000;

const isFinished = (job: JobRecord) => job.status === 'completed' || job.status === 'failed';

/** One `status` event: the job as GET /api/v1/job/:jobId shows it, plus the jobs ahead of it while it waits. */
export function progressEvent(job: JobRecord, position: number | null): { id: string; data: JobProgressEvent } {
  const data: JobProgressEvent = toJobView(job);
  if (job.status === 'queued' && position !== null) data.position = position;
  return { id: data.position === undefined ? job.status : `${job.status}-${data.position}`, data };
}

export const sseFrame = (id: string, event: string, data: unknown) => `id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/**
 * One `progress` event: how far the backend has got with a processing job. It has no `id`, so an
 * EventSource's Last-Event-ID stays the last status (what a reconnect resumes from).
 */
export function backendProgressEvent(job: JobRecord): { jobId: string; fraction?: number; message?: string } | null {
  if (job.status !== 'processing' || !job.progress) return null;
  const { fraction, message } = job.progress;
  return { jobId: job.jobId, ...(fraction !== undefined ? { fraction } : {}), ...(message !== undefined ? { message } : {}) };
}

export const sseEventFrame = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/**
 * Writes the job's state now and on each change until it finishes, disappears, the client leaves,
 * the stream is too old, or its key is revoked or its account changed (open-streams.ts).
 */
function streamProgress(deps: Deps, req: Request, res: Response, owner: StreamOwner, first: JobRecord, read: () => Promise<JobRecord | null>): void {
  const place = deps.openStreams.open(owner.keyId, owner.accountId, () => stop());
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', 'X-Accel-Buffering': 'no' });
  let lastData = '';
  let lastProgress = '';
  let position: number | null = null;
  let stopped = false;
  let tick: NodeJS.Timeout | undefined;
  const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), HEARTBEAT_MS);
  const deadline = setTimeout(() => stop(), MAX_STREAM_MS);
  const stop = () => {
    if (stopped) return;
    stopped = true;
    clearTimeout(tick);
    clearInterval(heartbeat);
    clearTimeout(deadline);
    place.release();
    res.end();
  };
  req.on('close', stop);

  const observe = async (job: JobRecord | null) => {
    if (!job) return stop();
    // A read that fails, or finds the job no longer waiting (a worker took it between the job store
    // read and this one, or it was deferred), keeps the last position rather than dropping it.
    if (job.status === 'queued') position = (await deps.queue.position(job.jobId).catch(() => null)) ?? position;
    if (stopped) return;
    const { id, data } = progressEvent(job, position);
    const text = JSON.stringify(data);
    if (text !== lastData) res.write(sseFrame(id, 'status', data));
    lastData = text;
    const progress = backendProgressEvent(job);
    const progressText = progress ? JSON.stringify(progress) : '';
    if (progress && progressText !== lastProgress) res.write(sseEventFrame('progress', progress));
    lastProgress = progressText;
    if (isFinished(job)) stop();
  };
  const next = () => {
    if (stopped) return;
    tick = setTimeout(() => {
      read()
        .then(observe)
        .catch((error: unknown) => deps.logger.warn('job events: job store read failed', { jobId: first.jobId, error }))
        .finally(next);
    }, TICK_MS);
  };
  observe(first).then(next, next);
}

/**
 * The job's progress stream for `accountId`'s caller: 404 (before any stream) for an unknown,
 * expired or other account's job, 204 to an EventSource reconnecting after the final event.
 */
/** Who holds a stream open: an API key of the account, or (the dashboard) the account's session alone. */
export interface StreamOwner {
  accountId: string;
  keyId: string | null;
}

export async function serveJobEvents(deps: Deps, req: Request, res: Response, jobId: string, owner: StreamOwner): Promise<void> {
  const read = async () => {
    const job = await deps.jobStore.get(jobId);
    return job?.accountId === owner.accountId ? job : null;
  };
  const job = JOB_ID.test(jobId) ? await read() : null;
  if (!job) throw new AppError('not_found', ErrorMessages.jobNotFound);
  // EventSource reconnects whenever a stream ends; 204 is how a server tells it to stop.
  if (isFinished(job) && req.get('last-event-id') === job.status) return void res.status(204).end();
  if (req.method === 'HEAD') return void res.status(200).type('text/event-stream').end();
  streamProgress(deps, req, res, owner, job, read);
}

/** GET /api/v1/job/:jobId/events: the job's status changes (and its backend's progress) as Server-Sent Events; auth and 404s as GET /api/v1/job/:jobId; never rate limited. */
export const jobEventRoutes = (deps: Deps) =>
  Router().get('/api/v1/job/:jobId/events', authenticate(deps.credentials, { allow: 'either' }), (req, res) =>
    serveJobEvents(deps, req, res, req.params.jobId as string, { accountId: authOf(res).account.id, keyId: authOf(res).keyId }),
  );
