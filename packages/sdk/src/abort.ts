/** Abort helpers that work on every runtime the SDK targets (AbortSignal.any is too new for some). */

/** What an aborted operation rejects with: the signal's reason, or an AbortError where a runtime sets none. */
export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

/** Resolves after `ms`, or rejects with the abort reason as soon as `signal` aborts; no timer or listener is left behind. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortReason(signal));
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signal!));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** A signal that aborts when any of `signals` does, with that signal's reason; call `dispose` to detach. */
export function anySignal(signals: Array<AbortSignal | undefined>): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  const detach: Array<() => void> = [];
  for (const source of signals) {
    if (!source) continue;
    if (source.aborted) {
      controller.abort(abortReason(source));
      break;
    }
    const onAbort = () => controller.abort(abortReason(source));
    source.addEventListener('abort', onAbort, { once: true });
    detach.push(() => source.removeEventListener('abort', onAbort));
  }
  return {
    signal: controller.signal,
    dispose: () => {
      for (const undo of detach) undo();
    },
  };
}
