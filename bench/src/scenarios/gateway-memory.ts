/**
 * Gateway memory as shipped (TypeScript through tsx, `npm run start:gateway`) next to the same
 * code compiled to one JavaScript bundle (esbuild, dependencies left external) run with plain
 * node: RSS right after start-up and under the poll load, with throughput and CPU per request.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { build, stop } from 'esbuild';
import type { Ctx } from '../context';
import { runAutocannon, type LoadTarget } from '../load';
import { measure, type Measurement } from '../measure';
import { readMemory, ROOT, sleep } from '../proc';

export interface GatewayMemoryRow {
  runner: string;
  idleRssMb?: number;
  poll: Measurement;
  vmHwmMb?: number;
}

export async function buildGatewayBundle(): Promise<string> {
  const rootPackage = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  const external = [...Object.keys(rootPackage.dependencies), 'esbuild'].flatMap((d) => [d, `${d}/*`]);
  const outfile = join(ROOT, 'bench', '.build', 'gateway.js');
  try {
    await build({ entryPoints: [join(ROOT, 'apps/gateway/src/main.ts')], bundle: true, platform: 'node', target: 'node20', format: 'cjs', outfile, external, logLevel: 'warning' });
  } finally {
    // esbuild's service process would otherwise keep the bench alive after it is done.
    await stop();
  }
  return outfile;
}

export async function runGatewayMemory(ctx: Ctx, poll: LoadTarget): Promise<GatewayMemoryRow[]> {
  const { stack, config, log } = ctx;
  const bundle = await buildGatewayBundle();
  const rows: GatewayMemoryRow[] = [];
  // A small young generation: V8 otherwise lets its semi-spaces grow to 16 MB each under load.
  const smallYoung = ['--max-semi-space-size=1'];
  const runners: Array<[string, { nodeArgs?: string[]; compiled?: string }]> = [
    ['tsx (as shipped)', {}],
    ['tsx, --max-semi-space-size=1', { nodeArgs: smallYoung }],
    ['compiled bundle, plain node', { compiled: bundle }],
    ['compiled bundle, --max-semi-space-size=1', { compiled: bundle, nodeArgs: smallYoung }],
  ];
  for (const [runner, options] of runners) {
    await stack.stopGateway();
    const child = await stack.startGateway(options);
    await sleep(3000);
    const idleRssMb = readMemory(child.pid)?.rssMb;
    await runAutocannon(poll, { connections: config.connections, durationS: config.warmupS }).done;
    const m = await measure(() => runAutocannon(poll, { connections: config.connections, durationS: config.durationS }), { serverPid: child.pid });
    rows.push({ runner, idleRssMb: idleRssMb && Math.round(idleRssMb), poll: m, vmHwmMb: Math.round(readMemory(child.pid)?.hwmMb ?? NaN) });
    log(`memory: ${runner}: idle RSS ${idleRssMb?.toFixed(0)} MB, under poll peak ${m.peakRssMb} MB, ${m.load.okRps} req/s, ${m.serverCpuUsPerReq} µs CPU/req`);
  }
  await stack.stopGateway();
  await stack.startGateway();
  return rows;
}
