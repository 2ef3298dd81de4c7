import { AppError, isUuid, type KeyKind } from '@promptpix/core';
import type { GatewayDeps } from '../deps';

type Deps = Pick<GatewayDeps, 'apiKeys' | 'invalidation' | 'logger'>;

/**
 * Creates an API key for an account (operator API and dashboard). A new publishable key changes
 * the domain lists permalinks are served under, so their cache is evicted.
 */
export async function createAccountKey(deps: Deps, account: { id: string; handle: string }, input: { kind: KeyKind; name: string; domains: string[] }) {
  const created = await deps.apiKeys.create(account.id, input);
  await deps.invalidation.publish({ kind: 'permalinks', accountId: account.id });
  deps.logger.info('key created', { handle: account.handle, keyId: created.id, kind: created.kind });
  return created;
}

/**
 * Revokes a key and evicts it from every gateway's key cache. With an account, only that
 * account's key: another's, an unknown or a malformed id is a 404.
 */
export async function revokeAccountKey(deps: Deps, id: string, accountId?: string): Promise<void> {
  if (!isUuid(id) || !(await deps.apiKeys.revoke(id, accountId))) throw new AppError('not_found', 'Key not found');
  await deps.invalidation.publish({ kind: 'key', keyId: id });
  deps.logger.info('key revoked', { keyId: id });
}
