import type { Request, RequestHandler, Response } from 'express';
import {
  AppError,
  accountStatusError,
  checkOrigin,
  effectiveBudget,
  hashApiKey,
  keyKindOf,
  type BudgetOverrides,
  type Caller,
  type KeyKind,
  type PlanName,
  type PublishableBudget,
  type PublishableCaller,
} from '@promptpix/core';
import { ErrorMessages } from '@promptpix/contracts';
import type { ApiKeyRepository, ApiKeyWithAccount } from '@promptpix/db';
import { BODY_LIMITS, jsonBody } from './body';

export interface AuthContext {
  keyId: string;
  kind: KeyKind;
  account: ApiKeyWithAccount['account'];
  domains: string[];
  /** The key's own budget settings (null: the service default) and, in signed mode, its signing secret. */
  limits: { budget: BudgetOverrides; signingSecret?: string };
}

export const authOf = (res: Response): AuthContext => res.locals.auth as AuthContext;

/** The key a generation is started for, with its plan's cap on jobs in progress. */
export const callerOf = (auth: AuthContext, activeJobsPerKey: Record<PlanName, number>): Caller => ({
  keyId: auth.keyId,
  activeJobLimit: activeJobsPerKey[auth.account.plan as PlanName],
});

/** A publishable key's budget and signed mode for one request from `client` (docs/api/embed.md); undefined for a secret key. */
export const publishableCallerOf = (auth: AuthContext, client: string | undefined, defaults: PublishableBudget): PublishableCaller | undefined =>
  auth.kind === 'publishable'
    ? {
        keyId: auth.keyId,
        client: client ?? 'unknown',
        budget: effectiveBudget(defaults, auth.limits.budget),
        ...(auth.limits.signingSecret !== undefined && { signingSecret: auth.limits.signingSecret }),
      }
    : undefined;

/** Bearer header first; the `key` query parameter where a header is impossible (spec, Authentication 2). */
function presentedKey(req: Request): string | null {
  const header = req.get('authorization');
  if (header) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (match) return match[1];
  }
  const query = req.query.key;
  return typeof query === 'string' && query.length > 0 ? query : null;
}

export interface AuthOptions {
  /** Which key kinds may call the route. */
  allow: 'secret' | 'either';
  /** The most body the route reads once the key is known; 1 MiB unless the route needs less. */
  bodyLimit?: string;
}

/** Key lookups for authentication, and (optionally) where to note that a key was used (`lastUsedAt`, fire-and-forget). */
export type KeyCredentials = Pick<ApiKeyRepository, 'findActiveByHash'> & { recordUse?: (keyId: string) => void };

const readApiBody = jsonBody(BODY_LIMITS.api);

/**
 * Spec, Authentication 1–8: key present and known, account approved, key kind allowed,
 * origin on the key's domain list; then the CORS answer for the actual response. Only then is the
 * body read (up to 1 MiB).
 */
export const authenticate = (apiKeys: KeyCredentials, options: AuthOptions): RequestHandler => {
  const readBody = options.bodyLimit ? jsonBody(options.bodyLimit) : readApiBody;
  return async (req, res, next) => {
    // Until we know the key, any origin may read the error (no credentials are involved).
    res.setHeader('Access-Control-Allow-Origin', '*');
    const key = presentedKey(req);
    if (!key) throw new AppError('unauthorized', ErrorMessages.missingKey);
    const kind = keyKindOf(key);
    const row = kind ? await apiKeys.findActiveByHash(hashApiKey(key)) : null;
    if (!row) throw new AppError('unauthorized', ErrorMessages.invalidKey);

    const statusError = accountStatusError(row.account.status);
    if (statusError) throw statusError;
    if (row.kind === 'publishable' && options.allow === 'secret') throw new AppError('forbidden', ErrorMessages.publishableForbidden);

    const origin = req.get('origin');
    const verdict = checkOrigin(row.domains, origin);
    if (verdict === 'blocked') {
      res.removeHeader('Access-Control-Allow-Origin');
      throw new AppError('forbidden', ErrorMessages.originNotAllowed);
    }
    if (verdict === 'allowed' && origin) {
      res.setHeader('Access-Control-Allow-Origin', origin);
      res.vary('Origin');
    }
    const limits = {
      budget: {
        clientPerHour: row.budgetClientPerHour,
        clientPerDay: row.budgetClientPerDay,
        keyPerHour: row.budgetKeyPerHour,
        keyPerDay: row.budgetKeyPerDay,
      },
      ...(row.signedPrompts && row.signingSecret && { signingSecret: row.signingSecret }),
    };
    res.locals.auth = { keyId: row.id, kind: row.kind, account: row.account, domains: row.domains, limits } satisfies AuthContext;
    apiKeys.recordUse?.(row.id);
    readBody(req, res, next);
  };
};
