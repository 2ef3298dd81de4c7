/**
 * Embedded storage: files under a root directory, served by the web process at
 * `${publicBaseUrl}/files/<key>`. Writes go to a hidden temp file next to the target and are
 * renamed into place, so a reader never sees a half-written image.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { access, mkdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import type { Storage } from '@promptpix/core';
import { assertStorageKey, storageKeyProblem, trimTrailingSlashes, urlPathOfKey } from './keys';

export interface LocalDiskStorageConfig {
  root: string;
  /** Origin (and optional path) the web process serves `/files/*` from, e.g. `http://localhost:3000`. */
  publicBaseUrl: string;
}

/**
 * The file a key names under `root`, or null when the key is not a valid storage key or would
 * leave the root. Pure: does not check that the file exists. Meant for the route serving files.
 */
export function resolveLocalFile(root: string, key: string): string | null {
  if (storageKeyProblem(key)) return null;
  const base = resolve(root);
  const file = resolve(base, key);
  const rel = relative(base, file);
  if (rel === '' || isAbsolute(rel) || rel === '..' || rel.startsWith(`..${sep}`)) return null;
  return file;
}

const isMissing = (error: unknown) => {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR';
};

export function createLocalDiskStorage(config: LocalDiskStorageConfig): Storage {
  const root = resolve(config.root);
  const publicBase = trimTrailingSlashes(config.publicBaseUrl);

  const fileFor = (key: string): string => {
    assertStorageKey(key);
    const file = resolveLocalFile(root, key);
    // Unreachable after assertStorageKey, kept as a second guard against escaping the root.
    if (!file) throw new Error(`Storage key escapes the root: ${JSON.stringify(key)}`);
    return file;
  };

  return {
    async put(key, body, _contentType) {
      const file = fileFor(key);
      const dir = dirname(file);
      await mkdir(dir, { recursive: true });
      // Dot-prefixed so the static file route (dotfiles: 'deny') never serves a partial write.
      const temp = resolve(dir, `.${basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
      try {
        await writeFile(temp, body);
        await rename(temp, file);
      } catch (error) {
        await unlink(temp).catch(() => undefined);
        throw error;
      }
    },

    async get(key) {
      const file = fileFor(key);
      try {
        return await readFile(file);
      } catch (error) {
        if (isMissing(error)) return null;
        throw error;
      }
    },

    async exists(key) {
      const file = fileFor(key);
      try {
        return (await stat(file)).isFile();
      } catch (error) {
        if (isMissing(error)) return false;
        throw error;
      }
    },

    async delete(key) {
      try {
        await unlink(fileFor(key));
      } catch (error) {
        if (!isMissing(error)) throw error;
      }
    },

    publicUrl(key) {
      return `${publicBase}/files/${urlPathOfKey(key)}`;
    },

    async ping() {
      await mkdir(root, { recursive: true });
      await access(root, constants.R_OK | constants.W_OK);
    },
  };
}
