/**
 * Builds the page script (browser/main.ts) into one minified IIFE with esbuild, in memory.
 * The gateway calls this on the first request for /service-client.js and keeps the result for
 * the life of the process, so `npm install` + `npm start` is all a deployment needs: no build
 * step, no generated file to keep in sync with the source.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

export interface ServiceClientBundle {
  code: string;
  gzip: Buffer;
  /** Strong validator of `code`; the gzip representation uses `etag` with a `-gz` suffix inside the quotes. */
  hash: string;
}

/** Browsers the script targets: ES2020 syntax (Chrome 80, Firefox 74, Safari 14; `??=` is lowered); fetch keepalive and IntersectionObserver are feature-checked or harmless when missing. */
export const BROWSER_TARGET = ['es2020'];

export async function buildServiceClient(): Promise<ServiceClientBundle> {
  // esbuild's JavaScript API is loaded at the first build, not at start (a few MB resident).
  const { build } = require('esbuild') as typeof import('esbuild');
  const result = await build({
    entryPoints: [join(__dirname, 'browser', 'main.ts')],
    bundle: true,
    write: false,
    minify: true,
    format: 'iife',
    platform: 'browser',
    target: BROWSER_TARGET,
    legalComments: 'none',
    charset: 'utf8',
    logLevel: 'silent',
  });
  const code = result.outputFiles[0].text;
  return { code, gzip: gzipSync(code, { level: 9 }), hash: createHash('sha256').update(code).digest('base64url').slice(0, 22) };
}

let cached: Promise<ServiceClientBundle> | undefined;

/** The bundle, built once per process; a failed build is retried on the next call. */
export function serviceClientBundle(): Promise<ServiceClientBundle> {
  cached ??= buildServiceClient().catch((error: unknown) => {
    cached = undefined;
    throw error;
  });
  return cached;
}
