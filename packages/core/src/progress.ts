/**
 * Live progress from a model call to the job record: backends report as often as they like (a
 * ComfyUI websocket sends a message per sampling step), the job store sees at most one write per
 * interval, and the last report is never lost while the call runs.
 */
import type { ModelProgress } from './ports/model';

/** Longest message kept on the job; backends' log lines can be long. */
export const PROGRESS_MESSAGE_MAX = 120;

/** Fraction clamped to 0..1 (dropped when not a finite number), message trimmed and shortened; null when nothing is left. */
export function normalizeProgress(progress: ModelProgress): ModelProgress | null {
  const out: ModelProgress = {};
  if (typeof progress.fraction === 'number' && Number.isFinite(progress.fraction)) {
    out.fraction = Math.round(Math.min(1, Math.max(0, progress.fraction)) * 1000) / 1000;
  }
  const message = typeof progress.message === 'string' ? progress.message.replace(/\s+/g, ' ').trim() : '';
  if (message) out.message = message.length > PROGRESS_MESSAGE_MAX ? `${message.slice(0, PROGRESS_MESSAGE_MAX - 1)}…` : message;
  return out.fraction === undefined && out.message === undefined ? null : out;
}

export interface ProgressThrottleOptions {
  /** At most one write per this many ms. */
  intervalMs: number;
  /** Stores one report; a failure is passed to `onError` and the next report tries again. */
  write: (progress: ModelProgress) => Promise<unknown>;
  onError?: (error: unknown) => void;
  now?: () => number;
}

export interface ProgressThrottle {
  report(progress: ModelProgress): void;
  /** Drops what is pending and stops writing; later reports are ignored. */
  stop(): void;
}

/**
 * The first report is written at once; later ones at most once per `intervalMs`, the latest
 * winning (a trailing write carries the newest state). A report equal to the last written one is
 * not written again, and writes never overlap.
 */
export function createProgressThrottle(options: ProgressThrottleOptions): ProgressThrottle {
  const now = options.now ?? Date.now;
  let lastWrittenAt = -Infinity;
  let lastWritten = '';
  let pending: ModelProgress | null = null;
  let timer: NodeJS.Timeout | undefined;
  let writing = false;
  let stopped = false;

  const flush = () => {
    timer = undefined;
    if (stopped || writing || !pending) return;
    const wait = lastWrittenAt + options.intervalMs - now();
    if (wait > 0) {
      timer = setTimeout(flush, wait);
      return;
    }
    const next = pending;
    pending = null;
    const text = JSON.stringify(next);
    if (text === lastWritten) return;
    writing = true;
    lastWrittenAt = now();
    lastWritten = text;
    options
      .write(next)
      .catch((error: unknown) => {
        lastWritten = '';
        options.onError?.(error);
      })
      .finally(() => {
        writing = false;
        if (pending && !timer) flush();
      });
  };

  return {
    report(progress) {
      if (stopped) return;
      const normal = normalizeProgress(progress);
      if (!normal) return;
      pending = normal;
      if (!timer) flush();
    },
    stop() {
      stopped = true;
      pending = null;
      clearTimeout(timer);
      timer = undefined;
    },
  };
}
