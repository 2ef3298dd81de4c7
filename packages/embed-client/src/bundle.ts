/**
 * The page script as `npm run build` wrote it (packages/embed-client/scripts/build.mjs):
 * dist/service-client.js and its gzip form, read once per process. The gateway runs no esbuild;
 * missing files are an error at start, naming the command that makes them.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export interface ServiceClientBundle {
  code: string;
  gzip: Buffer;
  /** Strong validator of `code`; the gzip representation uses `etag` with a `-gz` suffix inside the quotes. */
  hash: string;
}

/** Defined by scripts/build.mjs's banner in a bundle: the folder of the running dist/<app>.js. */
declare const __bundleDir: string | undefined;

/** dist/: beside the bundle that runs (`npm start`, the images), or the checkout's when the sources run (tests). */
export const DEFAULT_BUILD_DIR = typeof __bundleDir === 'string' ? __bundleDir : resolve(__dirname, '../../../dist');

export class ServiceClientNotBuiltError extends Error {
  constructor(dir: string, cause: unknown) {
    super(`the page script's built file is missing or unreadable in ${dir} (${(cause as Error).message}); run \`npm run build\` (npm install runs it too)`, {
      cause,
    });
  }
}

export function loadServiceClient(dir = DEFAULT_BUILD_DIR): ServiceClientBundle {
  try {
    const code = readFileSync(join(dir, 'service-client.js'), 'utf8');
    const gzip = readFileSync(join(dir, 'service-client.js.gz'));
    return { code, gzip, hash: createHash('sha256').update(code).digest('base64url').slice(0, 22) };
  } catch (error) {
    throw new ServiceClientNotBuiltError(dir, error);
  }
}

let loaded: ServiceClientBundle | undefined;

/** The built page script, read on the first call and kept for the life of the process. */
export function serviceClientBundle(): ServiceClientBundle {
  loaded ??= loadServiceClient();
  return loaded;
}
