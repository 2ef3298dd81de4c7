/**
 * Gateway memory under the poll load, restarted fresh for each runner: the built bundle as
 * shipped (`npm run start:gateway` and the image: a 128 MB old generation), the same without the
 * heap limit (as before), and as shipped with every in-process cache filled to its byte budget
 * first and churned during the load (./fill-caches.ts), with RSS split into V8 heap, external and
 * native right after the load (see ../memory.ts). BENCH_MEMORY_TSX=1 adds the TypeScript through
 * tsx as it ran before the build.
 */
import type { Ctx } from '../context';
import { runAutocannon, type LoadTarget } from '../load';
import { measure, type Measurement } from '../measure';
import { memorySplit, splitText, type MemorySplit } from '../memory';
import { logTail, readMemory, sleep } from '../proc';
import { cacheMegabytes, fillAccount, fillGatewayCaches } from './fill-caches';

export interface GatewayMemoryRow {
  runner: string;
  idleRssMb?: number;
  poll: Measurement;
  vmHwmMb?: number;
  afterPoll?: MemorySplit;
  /** The caches' own estimate of their bytes after the load (MB), where they were filled. */
  caches?: Record<string, number>;
  /** Requests the fill sent before and during the load. */
  fillRequests?: number;
  /** Whether the gateway was still running after the load (a heap limit too low ends it with an OOM). */
  survived: boolean;
}

/** A poll target of its own (a completed job), for a memory phase run without the http phase. */
export async function pollTarget(ctx: Ctx): Promise<LoadTarget> {
  const account = await ctx.operator.benchAccount('bench-memory-poll', 1);
  const [job] = await ctx.api.generateAll(account.keys[0], [{ prompt: 'bench memory poll target: a small red boat', width: 256, height: 256, format: 'png' }]);
  return { base: ctx.stack.baseUrl, request: { method: 'GET', path: `/api/v1/job/${job.jobId}`, headers: { authorization: `Bearer ${account.keys[0]}` } } };
}

export async function runGatewayMemory(ctx: Ctx, poll: LoadTarget): Promise<GatewayMemoryRow[]> {
  const { stack, config, log } = ctx;
  const rows: GatewayMemoryRow[] = [];
  const runners: Array<[string, { nodeArgs?: string[]; source?: boolean; env?: Record<string, string>; fill?: boolean }]> = [
    ['bundle as shipped (--max-old-space-size=128)', {}],
    ['bundle as shipped, caches filled and churned', { fill: true }],
    // The live heap after a full GC is about 40 MB (heap snapshot after the poll load): without a
    // limit V8 grows the old generation with garbage rather than collect under this load.
    ['bundle, no heap limit (before)', { env: { NODE_OPTIONS: '' } }],
  ];
  if (process.env.BENCH_MEMORY_TSX === '1')
    runners.push(['TypeScript through tsx, no heap limit (before the build)', { source: true, env: { NODE_OPTIONS: '' } }]);
  for (const [runner, options] of runners) {
    await stack.stopGateway();
    const child = await stack.startGateway(options);
    await sleep(3000);
    const idleRssMb = readMemory(child.pid)?.rssMb;
    let fillRequests: number | undefined;
    let churn: Promise<number> | undefined;
    let measured = false;
    if (options.fill) {
      const account = await fillAccount(ctx);
      const filled = await fillGatewayCaches(ctx, account).catch((error: unknown) => {
        throw new Error(`${String(error)}; the gateway is ${child.isRunning() ? 'running' : 'gone'}:\n${logTail(child, 60)}`);
      });
      fillRequests = filled.requests;
      log(
        `memory: ${runner}: filled with ${filled.requests} requests: ${JSON.stringify(filled.caches)} MB; RSS ${readMemory(child.pid)?.rssMb?.toFixed(0)} MB`,
      );
      // The caches keep turning over during the measured load: new entries evict old ones.
      churn = (async () => {
        let n = 0;
        for (let round = 1; !measured && child.isRunning(); round++) n += (await fillGatewayCaches(ctx, account, round, () => measured)).requests;
        return n;
      })().catch(() => 0);
    }
    await runAutocannon(poll, { connections: config.connections, durationS: config.warmupS }).done;
    const m = await measure(() => runAutocannon(poll, { connections: config.connections, durationS: config.durationS }), { serverPid: child.pid });
    measured = true;
    if (churn) fillRequests = (fillRequests ?? 0) + (await churn);
    const survived = child.isRunning();
    if (!survived) log(`memory: ${runner}: THE GATEWAY EXITED:\n${logTail(child, 60)}`);
    const afterPoll = survived ? await memorySplit(stack.baseUrl, child.pid) : undefined;
    const caches = survived && options.fill ? await cacheMegabytes(stack.baseUrl) : undefined;
    rows.push({
      runner,
      idleRssMb: idleRssMb && Math.round(idleRssMb),
      poll: m,
      vmHwmMb: afterPoll?.vmHwmMb && Math.round(afterPoll.vmHwmMb),
      afterPoll,
      caches,
      fillRequests,
      survived,
    });
    log(
      `memory: ${runner}: idle RSS ${idleRssMb?.toFixed(0)} MB, under poll peak ${m.peakRssMb} MB, ${m.load.okRps} req/s, ${m.serverCpuUsPerReq} µs CPU/req; ${afterPoll ? `after: ${splitText(afterPoll)}` : 'THE GATEWAY EXITED'}${caches ? `; caches ${JSON.stringify(caches)} MB` : ''}`,
    );
  }
  await stack.stopGateway();
  await stack.startGateway();
  return rows;
}
