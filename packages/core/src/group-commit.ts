/**
 * Group commit: calls made in the same turn of the event loop are sent as one batch (one
 * statement, one round trip), and each caller gets its own answer or its own error.
 *
 * The batch is sent from `setImmediate`, so it collects every call the requests read in one poll
 * phase make, through all their microtasks, and adds no timer delay. A batch that fails as a whole
 * is tried again one item at a time when `retryAlone(error)` says the failure may belong to one
 * item (the database refused the statement, so nothing of it was applied): one bad item then
 * fails alone. Otherwise (the connection is gone) every caller of the batch gets the error.
 */
export interface GroupCommitOptions<I, O> {
  /** Runs one batch: one result per item, in order; an Error in a slot fails that caller only. */
  run(items: I[]): Promise<Array<O | Error>>;
  /** Most items in one batch; the rest go in the next. */
  maxItems: number;
  /** Whether a batch's failure may come from one of its items (then each is tried alone). */
  retryAlone?(error: unknown): boolean;
  /** Defers sending the open batch; `setImmediate` unless a test sets it. */
  schedule?(send: () => void): void;
}

interface Waiting<I, O> {
  item: I;
  resolve(value: O): void;
  reject(error: unknown): void;
}

export function createGroupCommit<I, O>(o: GroupCommitOptions<I, O>): (item: I) => Promise<O> {
  const schedule = o.schedule ?? ((send) => void setImmediate(send));
  let open: Waiting<I, O>[] = [];

  const settle = (waiting: Waiting<I, O>[], results: Array<O | Error>) => {
    waiting.forEach((w, i) => {
      const result = results[i];
      if (result instanceof Error) w.reject(result);
      else if (i >= results.length) w.reject(new Error(`group commit: no result for item ${i} of ${waiting.length}`));
      else w.resolve(result);
    });
  };

  async function send(waiting: Waiting<I, O>[]): Promise<void> {
    try {
      settle(waiting, await o.run(waiting.map((w) => w.item)));
    } catch (error) {
      if (waiting.length > 1 && o.retryAlone?.(error)) {
        await Promise.all(waiting.map((w) => send([w])));
        return;
      }
      for (const w of waiting) w.reject(error);
    }
  }

  const flush = () => {
    const batch = open;
    open = [];
    for (let i = 0; i < batch.length; i += o.maxItems) void send(batch.slice(i, i + o.maxItems));
  };

  return (item) =>
    new Promise<O>((resolve, reject) => {
      if (open.length === 0) schedule(flush);
      open.push({ item, resolve, reject });
    });
}
