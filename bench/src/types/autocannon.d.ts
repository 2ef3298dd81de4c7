/** The part of autocannon's API the bench uses (the package ships no types). */
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  namespace autocannon {
    interface Request {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string;
      setupRequest?: (req: Record<string, unknown>, context: Record<string, unknown>) => Record<string, unknown>;
    }
    interface Options {
      url: string;
      connections?: number;
      duration?: number;
      timeout?: number;
      overallRate?: number;
      excludeErrorStats?: boolean;
      ignoreCoordinatedOmission?: boolean;
      requests?: Request[];
    }
    interface Result {
      errors: number;
      timeouts: number;
      non2xx: number;
      duration: number;
      requests: { total: number; average: number };
      latency: { p50: number; p99: number; average: number; max: number };
      statusCodeStats?: Record<string, { count: number }>;
    }
    interface Instance extends EventEmitter {
      stop(): void;
    }
  }

  function autocannon(options: autocannon.Options): autocannon.Instance;
  export = autocannon;
}
