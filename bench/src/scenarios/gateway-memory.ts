/**
 * Gateway memory under the poll load, restarted fresh for each runner: the built bundle on plain
 * node as shipped (`npm run start:gateway`, the image), with a 1 MB young generation, with a
 * 128 MB old generation, and the
 * TypeScript through tsx as it ran before the build, with RSS split into V8 heap, external and
 * native right after the load (see ../memory.ts).
 */
import type { Ctx } from '../context';
import { runAutocannon, type LoadTarget } from '../load';
import { measure, type Measurement } from '../measure';
import { memorySplit, splitText, type MemorySplit } from '../memory';
import { readMemory, sleep } from '../proc';

export interface GatewayMemoryRow {
  runner: string;
  idleRssMb?: number;
  poll: Measurement;
  vmHwmMb?: number;
  afterPoll?: MemorySplit;
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
  // A small young generation: V8 otherwise lets its semi-spaces grow to 16 MB each under load.
  const smallYoung = ['--max-semi-space-size=1'];
  const runners: Array<[string, { nodeArgs?: string[]; source?: boolean }]> = [
    ['bundle, plain node (as shipped)', {}],
    ['bundle, --max-semi-space-size=1', { nodeArgs: smallYoung }],
    // The live heap after a full GC is about 40 MB (heap snapshot after the poll load): the rest of
    // the heap under load is garbage V8 has not collected yet. A cap makes it collect sooner.
    ['bundle, --max-old-space-size=128', { nodeArgs: ['--max-old-space-size=128'] }],
    ['TypeScript through tsx (before the build)', { source: true }],
  ];
  for (const [runner, options] of runners) {
    await stack.stopGateway();
    const child = await stack.startGateway(options);
    await sleep(3000);
    const idleRssMb = readMemory(child.pid)?.rssMb;
    await runAutocannon(poll, { connections: config.connections, durationS: config.warmupS }).done;
    const m = await measure(() => runAutocannon(poll, { connections: config.connections, durationS: config.durationS }), { serverPid: child.pid });
    const afterPoll = await memorySplit(stack.baseUrl, child.pid);
    rows.push({ runner, idleRssMb: idleRssMb && Math.round(idleRssMb), poll: m, vmHwmMb: afterPoll.vmHwmMb && Math.round(afterPoll.vmHwmMb), afterPoll });
    log(`memory: ${runner}: idle RSS ${idleRssMb?.toFixed(0)} MB, under poll peak ${m.peakRssMb} MB, ${m.load.okRps} req/s, ${m.serverCpuUsPerReq} µs CPU/req; after: ${splitText(afterPoll)}`);
  }
  await stack.stopGateway();
  await stack.startGateway();
  return rows;
}
