import DataLoader from 'dataloader';

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

/**
 * DataLoader rejects a caller only for an Error instance; a driver's error from another realm
 * (PGlite's) is not one, so it is wrapped with its own fields (the SQLSTATE `code`) kept.
 */
const asError = (error: unknown): Error => {
  if (error instanceof Error) return error;
  const message = typeof (error as { message?: unknown } | null)?.message === 'string' ? (error as { message: string }).message : String(error);
  return Object.assign(new Error(message, { cause: error }), typeof error === 'object' ? error : {});
};

export function createGroupCommit<I, O>(o: GroupCommitOptions<I, O>): (item: I) => Promise<O> {
  async function run(items: readonly I[]): Promise<Array<O | Error>> {
    try {
      const results = await o.run([...items]);
      return items.map((_, i) => (i < results.length ? results[i] : new Error(`group commit: no result for item ${i} of ${items.length}`)));
    } catch (error) {
      if (items.length > 1 && o.retryAlone?.(error)) return Promise.all(items.map((item) => run([item]).then(([result]) => result)));
      const failure = asError(error);
      return items.map(() => failure);
    }
  }
  // DataLoader does the batching: the calls of one turn, split at maxItems, one answer or Error each.
  const loader = new DataLoader<I, O>(run, {
    cache: false,
    maxBatchSize: o.maxItems,
    batchScheduleFn: o.schedule ?? ((send) => void setImmediate(send)),
  });
  return (item) => loader.load(item);
}
