import { AppError, isUuid, type KeyKind } from '@promptpix/core';
import type { KeyLimits } from '@promptpix/db';
import type { GatewayDeps } from '../deps';

type Deps = Pick<GatewayDeps, 'apiKeys' | 'invalidation' | 'logger' | 'maxKeysPerAccount'>;

/**
 * Creates an API key for an account (operator API and dashboard). A new publishable key changes
 * the domain lists permalinks are served under, so their cache is evicted. An account holds at
 * most MAX_KEYS_PER_ACCOUNT live keys (409): keys are free to mint and each one is another bucket
 * of rate limit and job slots, counted under a per-account lock (concurrent creates never pass it together).
 */
export async function createAccountKey(
  deps: Deps,
  account: { id: string; handle: string },
  input: { kind: KeyKind; name: string; domains: string[] } & Partial<KeyLimits>,
) {
  const created = await deps.apiKeys.createWithin(account.id, input, deps.maxKeysPerAccount);
  if (!created) throw new AppError('conflict', `An account may hold at most ${deps.maxKeysPerAccount} live keys: revoke one first`);
  await deps.invalidation.publish({ kind: 'permalinks', accountId: account.id });
  deps.logger.info('key created', { handle: account.handle, keyId: created.id, kind: created.kind });
  return created;
}

/**
 * Revokes a key and evicts it from every gateway's key cache. With an account, only that
 * account's key: another's, an unknown or a malformed id is a 404.
 */
export async function revokeAccountKey(deps: Deps, id: string, accountId?: string): Promise<void> {
  if (!isUuid(id) || !(await deps.apiKeys.revoke(id, accountId))) throw keyNotFound();
  await deps.invalidation.publish({ kind: 'key', keyId: id });
  deps.logger.info('key revoked', { keyId: id });
}

const keyNotFound = () => new AppError('not_found', 'Key not found');

/** Sets a key's budgets or signed mode; every gateway's key cache drops the old settings. */
export async function updateKeyLimits(deps: Deps, id: string, patch: Partial<KeyLimits>, accountId?: string) {
  const updated = isUuid(id) ? await deps.apiKeys.updateLimits(id, patch, accountId) : null;
  if (!updated) throw keyNotFound();
  await deps.invalidation.publish({ kind: 'key', keyId: id });
  deps.logger.info('key limits changed', { keyId: id, changed: Object.keys(patch) });
  return updated;
}

/**
 * Rotates a (leaked) key in one action: a new key with the same name, domains, limits and
 * signing secret; the old one revoked and evicted from every gateway's key cache.
 */
export async function rotateAccountKey(deps: Deps, id: string, accountId?: string) {
  const rotated = isUuid(id) ? await deps.apiKeys.rotate(id, accountId) : null;
  if (!rotated) throw keyNotFound();
  await deps.invalidation.publish({ kind: 'key', keyId: id });
  deps.logger.info('key rotated', { keyId: id, newKeyId: rotated.id, kind: rotated.kind });
  return rotated;
}
