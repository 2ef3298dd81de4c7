import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const adminTokenPath = (dataDir: string) => join(dataDir, 'admin-token');

/**
 * Embedded mode with no ADMIN_TOKEN: generate one once, keep it in DATA_DIR (mode 0600) so
 * restarts and the admin CLI find the same token.
 */
export function ensureAdminToken(dataDir: string): { token: string; created: boolean } {
  const path = adminTokenPath(dataDir);
  if (existsSync(path)) return { token: readFileSync(path, 'utf8').trim(), created: false };
  mkdirSync(dataDir, { recursive: true });
  const token = `adm_${randomBytes(24).toString('base64url')}`;
  writeFileSync(path, `${token}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
  return { token, created: true };
}
