/**
 * Child processes of the bench (gateway, worker, floor servers): started in a process group of
 * their own, logged to files, stopped with SIGTERM then SIGKILL, and always killed when the bench
 * exits, however it exits. Also /proc readings (RSS, peak RSS, CPU time) by pid.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = join(__dirname, '..', '..');

export interface Child {
  name: string;
  pid: number;
  logPath: string;
  /** Wall-clock ms when it was spawned (a CPU profile's startTime is about this moment). */
  startedAt: number;
  /** Resolves with the exit code (or signal name) once the process is gone. */
  exited: Promise<number | string | null>;
  isRunning(): boolean;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
  stop(graceMs?: number): Promise<void>;
}

const running = new Set<ChildProcess>();

/** Last resort: synchronously kill what is still running when the bench process exits. */
process.on('exit', () => {
  for (const child of running) killGroup(child.pid, 'SIGKILL');
});

function killGroup(pid: number | undefined, signal: NodeJS.Signals) {
  if (!pid) return;
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

export interface StartOptions {
  name: string;
  /** An entry point relative to the repository root: TypeScript run as `node --import tsx <script>`, or a built bundle (runner `node`). */
  script: string;
  env: NodeJS.ProcessEnv;
  logDir: string;
  /** Extra node flags (e.g. --cpu-prof). */
  nodeArgs?: string[];
  /** `tsx` (default): TypeScript through tsx's loader; `node`: a built .js bundle. */
  runner?: 'tsx' | 'node';
}

/**
 * `node --import tsx <script>` is what the `tsx <script>` CLI does, minus its wrapper process: the
 * pid we hold is the server itself (its RSS, its CPU time, its --cpu-prof profile).
 */
export function startChild(o: StartOptions): Child {
  const startedAt = Date.now();
  const logPath = join(o.logDir, `${o.name}-${startedAt}.log`);
  const fd = openSync(logPath, 'a');
  const loader = o.runner === 'node' ? [] : ['--import', 'tsx'];
  const proc = spawn(process.execPath, [...(o.nodeArgs ?? []), ...loader, o.script], {
    cwd: ROOT,
    env: o.env,
    stdio: ['ignore', fd, fd],
    detached: true,
  });
  closeSync(fd);
  running.add(proc);
  let alive = true;
  const exited = new Promise<number | string | null>((resolve) => {
    proc.on('exit', (code, signal) => {
      alive = false;
      running.delete(proc);
      // The group may still hold helpers (tsx's esbuild service): take them down with it.
      killGroup(proc.pid, 'SIGKILL');
      resolve(code ?? signal);
    });
    proc.on('error', () => {
      alive = false;
      running.delete(proc);
      resolve(null);
    });
  });
  return {
    name: o.name,
    pid: proc.pid!,
    logPath,
    startedAt,
    exited,
    isRunning: () => alive,
    async stop(graceMs = 10_000) {
      if (!alive) return;
      try {
        process.kill(proc.pid!, 'SIGTERM');
      } catch {
        // gone
      }
      const timer = setTimeout(() => killGroup(proc.pid, 'SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

export function logTail(child: Child, lines = 30): string {
  try {
    return readFileSync(child.logPath, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/** Counts log lines at or above warn in a child's JSON log (LOG_LEVEL=warn writes nothing else). */
export function logLevels(child: Child): Record<string, number> {
  const counts: Record<string, number> = {};
  let text = '';
  try {
    text = readFileSync(child.logPath, 'utf8');
  } catch {
    return counts;
  }
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const entry = JSON.parse(line) as { level?: string; message?: string; error?: unknown; jobId?: string };
      const detail = typeof entry.error === 'string' ? entry.error : (entry.error as { message?: string } | undefined)?.message;
      // Same message, different detail: counted apart (the first 80 characters of the detail).
      const key = `${entry.level}: ${entry.message}${detail ? ` (${detail.slice(0, 80)})` : ''}`;
      counts[key] = (counts[key] ?? 0) + 1;
    } catch {
      // not JSON
    }
  }
  return counts;
}

export interface MemoryReading {
  rssMb: number;
  hwmMb: number;
}

export function readMemory(pid: number): MemoryReading | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rssMb: kb('VmRSS') / 1024, hwmMb: kb('VmHWM') / 1024 };
  } catch {
    return null;
  }
}

const CLOCK_TICKS_PER_S = 100;

/** User + system CPU time of a process (all its threads), or of one of its threads (`tid`; the main thread's is the pid), in milliseconds. */
export function readCpuMs(pid: number, tid?: number): number {
  try {
    const stat = readFileSync(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`, 'utf8');
    // Fields after the command name (which may contain spaces) start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    return ((utime + stime) * 1000) / CLOCK_TICKS_PER_S;
  } catch {
    return NaN;
  }
}

/** Samples VmRSS every `everyMs` until stopped; returns the peak seen. */
export function sampleRss(pid: number, everyMs = 200) {
  let peak = 0;
  const take = () => {
    const m = readMemory(pid);
    if (m && m.rssMb > peak) peak = m.rssMb;
  };
  take();
  const timer = setInterval(take, everyMs);
  return {
    stop(): number {
      clearInterval(timer);
      take();
      return peak;
    },
  };
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls `check` until it returns a value (not undefined) or the deadline passes. */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined>, timeoutMs: number, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${lastError ? `: ${String(lastError)}` : ''}`);
    await sleep(everyMs);
  }
}
