/**
 * Gateway memory under unauthenticated compressed bodies (issue 18): starts the embedded service
 * in this process, sends ABUSE_REQUESTS gzipped JSON bodies (each a few kB on the wire, ~95 MB
 * inflated) with no credentials to the operator API and the dashboard's photo upload, and prints
 * RSS and heap before, at peak (sampled every 10 ms) and after. Loopback only, bounded in count.
 *
 *   npx tsx scripts/abuse-memory.ts            # ABUSE_REQUESTS=6 by default
 */
import http from 'node:http';
import { gzipSync } from 'node:zlib';
import { startTestService } from '@promptpix/server/testing';

const REQUESTS = Number(process.env.ABUSE_REQUESTS ?? 6);
const INFLATED_BYTES = 95 * 1024 * 1024;
const MB = 1024 * 1024;

const post = (url: string, body: Buffer) =>
  new Promise<number>((resolve) => {
    const req = http.request(
      url,
      { method: 'POST', headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip', 'Content-Length': String(body.length) } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', () => resolve(0));
    req.end(body);
  });

async function main() {
  const service = await startTestService('embedded', { LOG_LEVEL: 'warn' }, { worker: false });
  try {
    const body = gzipSync(`{"name":"x","pad":"${' '.repeat(INFLATED_BYTES)}"}`, { level: 9 });
    global.gc?.();
    const before = process.memoryUsage();
    let peakRss = before.rss;
    let peakHeap = before.heapUsed + before.arrayBuffers;
    const sampler = setInterval(() => {
      const m = process.memoryUsage();
      peakRss = Math.max(peakRss, m.rss);
      peakHeap = Math.max(peakHeap, m.heapUsed + m.arrayBuffers);
    }, 10);
    const paths = ['/admin/api/v1/accounts', '/dashboard/api/characters'];
    const statuses = await Promise.all(Array.from({ length: REQUESTS }, (_, i) => post(`${service.baseUrl}${paths[i % paths.length]}`, body)));
    clearInterval(sampler);
    const after = process.memoryUsage();
    const row = (name: string, rss: number, heap: number) => `| ${name} | ${(rss / MB).toFixed(0)} | ${(heap / MB).toFixed(0)} |`;
    console.log(
      `${REQUESTS} unauthenticated requests of ${(body.length / 1024).toFixed(0)} kB gzipped (${(INFLATED_BYTES / MB).toFixed(0)} MB inflated); statuses: ${[...new Set(statuses)].join(', ')}`,
    );
    console.log('| | RSS MB | heap + buffers MB |\n|---|---|---|');
    console.log(row('before', before.rss, before.heapUsed + before.arrayBuffers));
    console.log(row('peak', peakRss, peakHeap));
    console.log(row('after', after.rss, after.heapUsed + after.arrayBuffers));
  } finally {
    await service.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
