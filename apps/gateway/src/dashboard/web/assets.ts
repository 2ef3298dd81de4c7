/**
 * The dashboard's built files (apps/dashboard, built by `npm run build` into dist/dashboard/):
 * manifest.json names the hashed file of each entry (app.js → app.<hash>.js), each with its gzip
 * form beside it. Read at start; the gateway runs no esbuild and holds none of the app's sources.
 * Missing files are an error at start, naming the command that makes them.
 */
import { readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Prebuilt } from '../../http/send-prebuilt';

export interface DashboardAsset extends Prebuilt {
  body: Buffer;
  /** The hashed file name, as linked from the page shell. */
  file: string;
  contentType: string;
}

export interface DashboardAssets {
  js: DashboardAsset;
  css: DashboardAsset;
  /** Hashed file name → asset. */
  byFile: Map<string, DashboardAsset>;
}

/** Defined by scripts/build.mjs's banner in a bundle: the folder of the running dist/<app>.js. */
declare const __bundleDir: string | undefined;

/**
 * dist/dashboard/: beside the bundle that runs (`npm start`, the images), or in the checkout's
 * dist/ when the sources run (tests).
 */
export const DEFAULT_DASHBOARD_DIR = typeof __bundleDir === 'string' ? join(__bundleDir, 'dashboard') : resolve(__dirname, '../../../../../dist/dashboard');

const CONTENT_TYPES: Record<string, string> = {
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
};

export class DashboardNotBuiltError extends Error {
  constructor(dir: string, cause: unknown) {
    super(`the dashboard's built files are missing or unreadable in ${dir} (${(cause as Error).message}); run \`npm run build\` (npm install runs it too)`, {
      cause,
    });
  }
}

const FILE = /^[\w-]+\.([0-9a-f]{16})\.(js|css)$/;

export function loadDashboardAssets(dir = DEFAULT_DASHBOARD_DIR): DashboardAssets {
  try {
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Record<string, string>;
    const load = (entry: string): DashboardAsset => {
      const file = manifest[entry];
      const hash = typeof file === 'string' ? FILE.exec(file)?.[1] : undefined;
      if (!hash) throw new Error(`manifest.json has no hashed file for ${entry}`);
      return { file, hash, body: readFileSync(join(dir, file)), gzip: readFileSync(join(dir, `${file}.gz`)), contentType: CONTENT_TYPES[entry] };
    };
    const js = load('app.js');
    const css = load('app.css');
    return { js, css, byFile: new Map([js, css].map((a) => [a.file, a])) };
  } catch (error) {
    throw new DashboardNotBuiltError(dir, error);
  }
}

/**
 * The assets, loaded now (so a gateway without them fails at start), and again when the manifest
 * changes (`npm run dev -w @promptpix/dashboard` rebuilds on every edit; one stat per page load).
 * A manifest that cannot be read after a change keeps the files already loaded.
 */
export function dashboardAssetsFrom(dir = DEFAULT_DASHBOARD_DIR): () => DashboardAssets {
  const manifest = join(dir, 'manifest.json');
  const mtimeOf = () => statSync(manifest, { throwIfNoEntry: false })?.mtimeMs ?? 0;
  let loadedAt = mtimeOf();
  let current = loadDashboardAssets(dir);
  return () => {
    const mtime = mtimeOf();
    if (mtime !== loadedAt) {
      loadedAt = mtime;
      try {
        current = loadDashboardAssets(dir);
      } catch {
        // Mid-build or removed: serve what was loaded.
      }
    }
    return current;
  };
}
