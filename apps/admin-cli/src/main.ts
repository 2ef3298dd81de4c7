/** Operator CLI: a thin client of /admin/api/v1. Prints the API's JSON on stdout. */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { adminTokenPath } from '@promptpix/runtime/admin-token';
import { toApiCall, UsageError, USAGE } from './commands';

function adminToken(): string | undefined {
  if (process.env.ADMIN_TOKEN) return process.env.ADMIN_TOKEN;
  const path = adminTokenPath(resolve(process.env.DATA_DIR || './data'));
  return existsSync(path) ? readFileSync(path, 'utf8').trim() : undefined;
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      url: { type: 'string' },
      handle: { type: 'string' },
      email: { type: 'string' },
      plan: { type: 'string' },
      status: { type: 'string' },
      'monthly-generations': { type: 'string' },
      kind: { type: 'string' },
      name: { type: 'string' },
      domain: { type: 'string', multiple: true },
      limit: { type: 'string' },
      account: { type: 'string' },
      model: { type: 'string' },
      since: { type: 'string' },
      cursor: { type: 'string' },
      'client-per-hour': { type: 'string' },
      'client-per-day': { type: 'string' },
      'key-per-hour': { type: 'string' },
      'key-per-day': { type: 'string' },
      signed: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help || positionals.length === 0) {
    process.stdout.write(`${USAGE}\n`);
    return values.help ? 0 : 2;
  }
  const call = toApiCall(positionals, values);
  const token = adminToken();
  if (!token) throw new UsageError('No admin token: set ADMIN_TOKEN or start the service once with `npm start` (it writes DATA_DIR/admin-token)');
  const base = (values.url ?? process.env.PROMPTPIX_URL ?? `http://127.0.0.1:${process.env.PORT || 3000}`).replace(/\/+$/, '');
  const response = await fetch(base + call.path, {
    method: call.method,
    headers: { authorization: `Bearer ${token}`, ...(call.body ? { 'content-type': 'application/json' } : {}) },
    body: call.body ? JSON.stringify(call.body) : undefined,
  });
  const text = await response.text();
  process.stdout.write(`${text || JSON.stringify({ status: response.status })}\n`);
  return response.ok ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    const message = error instanceof UsageError ? `${error.message}\n\n${USAGE}` : `admin: ${(error as Error).message}`;
    process.stderr.write(`${message}\n`);
    process.exit(error instanceof UsageError ? 2 : 1);
  },
);
