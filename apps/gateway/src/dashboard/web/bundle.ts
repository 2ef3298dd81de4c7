/**
 * Builds the dashboard app (src/main.tsx and the CSS it imports) with esbuild, in memory, the way
 * packages/embed-client builds /service-client.js: on the first request, kept for the life of the
 * process, so `npm install` + `npm start` serve it with no build step and no generated files.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Prebuilt } from '../../http/send-prebuilt';

export interface DashboardAsset extends Prebuilt {
  body: Buffer;
  contentType: string;
}

export interface DashboardAssets {
  js: DashboardAsset;
  css: DashboardAsset;
}

const asset = (text: string, contentType: string): DashboardAsset => {
  const body = Buffer.from(text, 'utf8');
  return { body, gzip: gzipSync(body, { level: 9 }), hash: createHash('sha256').update(body).digest('base64url').slice(0, 22), contentType };
};

export async function buildDashboardAssets(): Promise<DashboardAssets> {
  // esbuild's JavaScript API is loaded at the first build, not at start (a few MB resident).
  const { build } = require('esbuild') as typeof import('esbuild');
  const result = await build({
    entryPoints: [join(__dirname, 'src', 'main.tsx')],
    bundle: true,
    write: false,
    outdir: 'dashboard-out',
    entryNames: 'app',
    minify: true,
    format: 'iife',
    platform: 'browser',
    target: ['es2020'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    define: { 'process.env.NODE_ENV': '"production"' },
    legalComments: 'none',
    charset: 'utf8',
    logLevel: 'silent',
  });
  const text = (ext: string) => {
    const file = result.outputFiles.find((f) => f.path.endsWith(ext));
    if (!file) throw new Error(`dashboard bundle has no ${ext} output`);
    return file.text;
  };
  return { js: asset(text('.js'), 'text/javascript; charset=utf-8'), css: asset(text('.css'), 'text/css; charset=utf-8') };
}

let cached: Promise<DashboardAssets> | undefined;

/** The assets, built once per process; a failed build is retried on the next call. */
export function dashboardAssets(): Promise<DashboardAssets> {
  cached ??= buildDashboardAssets().catch((error: unknown) => {
    cached = undefined;
    throw error;
  });
  return cached;
}
