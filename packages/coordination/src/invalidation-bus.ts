import type Redis from 'ioredis';
import type { InvalidationBus, InvalidationMessage } from '@promptpix/core';

/** In one process, publishing is delivering. */
export function createLocalInvalidationBus(): InvalidationBus {
  const handlers: Array<(m: InvalidationMessage) => void> = [];
  return {
    async publish(message) {
      for (const handler of handlers) handler(message);
    },
    subscribe: (handler) => void handlers.push(handler),
    close: async () => undefined,
  };
}

/**
 * Redis pub/sub between gateway processes. Local handlers run synchronously on publish, so the
 * process that made the change never serves a stale key; the others hear it a moment later.
 */
export function createRedisInvalidationBus(options: { publisher: Redis; subscriber: Redis; prefix: string; onError?: (e: Error) => void }): InvalidationBus {
  const channel = `${options.prefix}auth-invalidate`;
  const local = createLocalInvalidationBus();
  let subscribed = false;
  options.subscriber.on('message', (from: string, raw: string) => {
    if (from !== channel) return;
    try {
      void local.publish(JSON.parse(raw) as InvalidationMessage);
    } catch (error) {
      options.onError?.(error as Error);
    }
  });
  return {
    async publish(message) {
      await local.publish(message);
      await options.publisher.publish(channel, JSON.stringify(message));
    },
    subscribe(handler) {
      local.subscribe(handler);
      if (!subscribed) {
        subscribed = true;
        options.subscriber.subscribe(channel).catch((e: Error) => options.onError?.(e));
      }
    },
    async close() {
      options.subscriber.disconnect();
    },
  };
}
