/**
 * Where a server's memory goes: RSS from /proc next to V8's own figures (prom-client's default
 * gauges on GET /metrics, which are process.memoryUsage() and v8.getHeapStatistics()). What is
 * neither V8 heap nor external (ArrayBuffers, wasm memories) is native: compiled code (wasm
 * included), libvips, glibc's malloc arenas, thread stacks.
 */
import { readMemory } from './proc';

export interface MemorySplit {
  rssMb: number;
  vmHwmMb?: number;
  heapTotalMb?: number;
  heapUsedMb?: number;
  /** ArrayBuffers and wasm memories (PGlite's database memory, Prisma's query compiler), Buffers. */
  externalMb?: number;
  /** The embedded database thread's own V8 heap and external memory (PGlite's WebAssembly memory), when it has one. */
  databaseHeapMb?: number;
  databaseExternalMb?: number;
  /** RSS − V8 heaps − external memories: code, native libraries' allocations, malloc arenas, stacks. */
  nativeMb?: number;
}

const round = (v: number) => Math.round(v * 10) / 10;

/** The gauges of `base`/metrics and the RSS of `pid`; undefined fields when /metrics is not there. */
export async function memorySplit(base: string, pid: number): Promise<MemorySplit> {
  const gauges: Record<string, number> = {};
  try {
    const res = await fetch(`${base}/metrics`);
    const text = res.ok ? await res.text() : '';
    for (const name of ['nodejs_heap_size_total_bytes', 'nodejs_heap_size_used_bytes', 'nodejs_external_memory_bytes']) {
      const value = new RegExp(`^${name}(?:\\{[^}]*\\})? ([\\d.e+]+)`, 'm').exec(text)?.[1];
      if (value) gauges[name] = Number(value) / 1024 / 1024;
    }
    for (const kind of ['heap_total', 'external']) {
      const value = new RegExp(`^promptpix_database_thread_memory_bytes\\{kind="${kind}"\\} ([\\d.e+]+)`, 'm').exec(text)?.[1];
      if (value) gauges[`database_${kind}`] = Number(value) / 1024 / 1024;
    }
  } catch {
    // no /metrics: RSS only
  }
  const proc = readMemory(pid);
  const rssMb = proc?.rssMb ?? NaN;
  const heapTotal = gauges.nodejs_heap_size_total_bytes;
  const external = gauges.nodejs_external_memory_bytes;
  const databaseHeap = gauges.database_heap_total;
  const databaseExternal = gauges.database_external;
  return {
    rssMb: round(rssMb),
    vmHwmMb: proc ? round(proc.hwmMb) : undefined,
    heapTotalMb: heapTotal === undefined ? undefined : round(heapTotal),
    heapUsedMb: gauges.nodejs_heap_size_used_bytes === undefined ? undefined : round(gauges.nodejs_heap_size_used_bytes),
    externalMb: external === undefined ? undefined : round(external),
    databaseHeapMb: databaseHeap === undefined ? undefined : round(databaseHeap),
    databaseExternalMb: databaseExternal === undefined ? undefined : round(databaseExternal),
    nativeMb:
      heapTotal === undefined || external === undefined ? undefined : round(rssMb - heapTotal - external - (databaseHeap ?? 0) - (databaseExternal ?? 0)),
  };
}

export const splitText = (m: MemorySplit) =>
  `RSS ${m.rssMb} MB = V8 heap ${m.heapTotalMb ?? '–'} (used ${m.heapUsedMb ?? '–'}) + external ${m.externalMb ?? '–'}` +
  (m.databaseHeapMb === undefined ? '' : ` + database thread: V8 heap ${m.databaseHeapMb} + external ${m.databaseExternalMb ?? '–'}`) +
  ` + native ${m.nativeMb ?? '–'}`;
