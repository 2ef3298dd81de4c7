/**
 * A coalescing batch queue: items added within `wait` ms go out together, at most `max` per
 * call, and only one call is in flight at a time. Items added while a call is in flight wait for
 * it and go out right after it. `send` must not throw; a rejection is swallowed all the same.
 */
export function createBatcher<T>(send: (items: T[]) => Promise<unknown>, max: number, wait: number): (item: T) => void {
  const queue: T[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  let busy = false;

  const flush = (): void => {
    clearTimeout(timer);
    timer = undefined;
    if (busy || !queue.length) return;
    busy = true;
    const items = queue.splice(0, max);
    Promise.resolve()
      .then(() => send(items))
      .catch(() => undefined)
      .then(() => {
        busy = false;
        flush();
      });
  };

  return (item) => {
    queue.push(item);
    if (busy) return;
    if (queue.length >= max) flush();
    else timer ??= setTimeout(flush, wait);
  };
}
