import type { operatorApi, publicApi } from './api';
import type { Stack } from './stack';
import type { Counter, PgCounts, RedisCounts } from './wire';

export interface BenchConfig {
  /** Measured seconds of each HTTP scenario. */
  durationS: number;
  /** Measured seconds of each floor run. */
  floorDurationS: number;
  /** Unmeasured seconds before each run. */
  warmupS: number;
  /** Connections of every closed-loop run, floors included. */
  connections: number;
  /** Phases to run (all by default). */
  only: Set<string> | null;
  /** HTTP scenarios to run, by id (all by default). */
  scenarios: Set<string> | null;
  profile: boolean;
  replaySeconds: number;
}

/** The counting gateway and the proxies its connections pass (count.ts). */
export interface Counting {
  baseUrl: string;
  pg: Counter<PgCounts>;
  redis: Counter<RedisCounts>;
}

export interface Ctx {
  config: BenchConfig;
  stack: Stack;
  operator: ReturnType<typeof operatorApi>;
  api: ReturnType<typeof publicApi>;
  log(line: string): void;
  /** The counting gateway and its proxies, once started. */
  counting?: Counting;
}

export function loadBenchConfig(env: NodeJS.ProcessEnv = process.env): BenchConfig {
  const num = (name: string, fallback: number) => {
    const v = Number(env[name]);
    return env[name] !== undefined && Number.isFinite(v) && v > 0 ? v : fallback;
  };
  return {
    durationS: num('BENCH_DURATION_S', 10),
    floorDurationS: num('BENCH_FLOOR_DURATION_S', 8),
    warmupS: num('BENCH_WARMUP_S', 2),
    connections: num('BENCH_CONNECTIONS', 50),
    only: env.BENCH_ONLY ? new Set(env.BENCH_ONLY.split(',').map((s) => s.trim())) : null,
    scenarios: env.BENCH_SCENARIOS ? new Set(env.BENCH_SCENARIOS.split(',').map((s) => s.trim())) : null,
    profile: env.BENCH_PROFILE !== '0',
    replaySeconds: num('BENCH_REPLAY_S', 20),
  };
}

export const PHASES = [
  'http',
  'profile',
  'db',
  'memory',
  'embedded',
  'images',
  'pipeline',
  'worker',
  'cost',
  'instant',
  'meaning',
  'subjects',
  'fairness',
] as const;
export type Phase = (typeof PHASES)[number];
export const wants = (ctx: Ctx, phase: Phase) => !ctx.config.only || ctx.config.only.has(phase);
