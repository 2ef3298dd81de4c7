import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The service's version: the root package.json's, read once. */
export const packageVersion = (() => {
  let version: string | undefined;
  return () => (version ??= JSON.parse(readFileSync(join(__dirname, '..', '..', '..', '..', 'package.json'), 'utf8')).version as string);
})();
