/**
 * Exact PostgreSQL and Redis round trips per request: the scenario's requests, one at a time,
 * through a second gateway whose connections pass the counting proxies (wire.ts). Background
 * work a request causes later (buffered analytics writes) is waited for and included.
 */
import type { Counting, Ctx } from './context';
import type { LoadTarget, RequestShape } from './load';
import { sleep } from './proc';
import { startPgCounter, startRedisCounter } from './wire';

export interface WireCost {
  requests: number;
  /** Requests in flight at a time while counting (1: one at a time). */
  inFlight: number;
  statuses: Record<string, number>;
  pgRoundTripsPerReq: number;
  pgStatementsPerReq: number;
  redisCommandsPerReq: number;
  redisWritesPerReq: number;
  /** Statements by SQL text, per request, most frequent first. */
  sql: Array<{ sql: string; perReq: number }>;
  redisCommands: Array<{ command: string; perReq: number }>;
}

export async function startCounting(ctx: Ctx): Promise<Counting> {
  const pg = await startPgCounter(5432);
  const redis = await startRedisCounter(6379);
  const { baseUrl } = await ctx.stack.startCountingGateway(pg.port, redis.port);
  return { baseUrl, pg, redis };
}

function shapeOf(target: LoadTarget, i: number): RequestShape {
  if (!target.vary) return target.request;
  const v = target.vary(i);
  return { ...target.request, ...v, headers: { ...target.request.headers, ...v.headers } };
}

const r3 = (v: number) => Math.round(v * 1000) / 1000;

/**
 * `offset` keeps request variations (distinct prompts) apart from those of the load runs.
 * `inFlight` > 1 sends the counted requests that many at a time (what group commit shares under
 * load); the default is one at a time.
 */
export async function countWire(
  counting: Counting,
  target: LoadTarget,
  o: { requests: number; offset: number; warmup?: number; inFlight?: number },
): Promise<WireCost> {
  const send = async (i: number) => {
    const shape = shapeOf(target, i);
    const res = await fetch(`${counting.baseUrl}${shape.path}`, { method: shape.method, headers: shape.headers, body: shape.body, redirect: 'manual' });
    await res.arrayBuffer();
    return res.status;
  };
  for (let i = 0; i < (o.warmup ?? 10); i++) await send(o.offset + i);
  await sleep(1200); // buffered analytics of the warm-up are written now, not in the count
  counting.pg.reset();
  counting.redis.reset();
  const statuses: Record<string, number> = {};
  let next = 0;
  const sender = async () => {
    while (next < o.requests) {
      const status = await send(o.offset + 1000 + next++);
      statuses[status] = (statuses[status] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, o.inFlight ?? 1) }, sender));
  await sleep(1300); // ...and those of the counted requests are
  const pg = counting.pg.read();
  const redis = counting.redis.read();
  const n = o.requests;
  return {
    requests: n,
    inFlight: Math.max(1, o.inFlight ?? 1),
    statuses,
    pgRoundTripsPerReq: r3(pg.roundTrips / n),
    pgStatementsPerReq: r3(pg.statements / n),
    redisCommandsPerReq: r3(redis.commands / n),
    redisWritesPerReq: r3(redis.writes / n),
    sql: Object.entries(pg.bySql)
      .sort((a, b) => b[1] - a[1])
      .map(([sql, c]) => ({ sql, perReq: r3(c / n) })),
    redisCommands: Object.entries(redis.byCommand)
      .sort((a, b) => b[1] - a[1])
      .map(([command, c]) => ({ command, perReq: r3(c / n) })),
  };
}
