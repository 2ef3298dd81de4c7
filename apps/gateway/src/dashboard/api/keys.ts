import { Router } from 'express';
import type { ApiKeyRepository } from '@promptpix/db';
import type { GatewayDeps } from '../../deps';
import { createAccountKey, revokeAccountKey } from '../../account-ops/keys';
import { parseOrThrow } from '../../http/validate';
import { createKeySchema, type KeyCreated, type KeyView } from '@promptpix/contracts';
import { signedIn } from '../session';

type Deps = Pick<GatewayDeps, 'apiKeys' | 'invalidation' | 'logger' | 'maxKeysPerAccount'>;

type KeyRow = Awaited<ReturnType<ApiKeyRepository['listActive']>>[number];

export const keyView = (k: Pick<KeyRow, 'id' | 'kind' | 'name' | 'hint' | 'domains' | 'createdAt'> & { lastUsedAt?: Date | null }): KeyView => ({
  id: k.id,
  kind: k.kind,
  name: k.name,
  prefix: k.hint,
  domains: k.domains,
  createdAt: k.createdAt.toISOString(),
  lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
});

/** The account's API keys: list the live ones, create (the key in clear this once), revoke. */
export const keyRoutes = (deps: Deps) =>
  Router()
    .get('/dashboard/api/keys', async (_req, res) => {
      const keys = await deps.apiKeys.listActive(signedIn(res).account.id);
      res.setHeader('Cache-Control', 'no-store');
      res.json({ keys: keys.map(keyView) });
    })
    .post('/dashboard/api/keys', async (req, res) => {
      const input = parseOrThrow(createKeySchema, req.body);
      const created = await createAccountKey(deps, signedIn(res).account, input);
      const body: KeyCreated = { key: keyView(created), secret: created.key };
      res.setHeader('Cache-Control', 'no-store');
      res.status(201).json(body);
    })
    .delete('/dashboard/api/keys/:id', async (req, res) => {
      await revokeAccountKey(deps, req.params.id, signedIn(res).account.id);
      res.status(204).end();
    });
