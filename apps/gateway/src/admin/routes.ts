import { Router } from 'express';
import { AppError, assertBaseStyleAllowed, fieldError, isUuid, maySignIn, type PlanName } from '@promptpix/core';
import type { GatewayDeps } from '../deps';
import type { RouteGroupDeps } from '../route-groups';
import { parseOrThrow } from '../http/validate';
import { adminAuth } from './admin-auth';
import { BODY_LIMITS, jsonBody } from '../http/middleware/body';
import { seedLibrary } from './library-seed';
import { streamEvents } from './analytics-export';
import {
  type AdminAccount,
  type AdminCreatedKey,
  type AdminKey,
  type AdminLibrarySeed,
  type AdminPermalink,
  type AdminQueue,
  type AdminRetried,
  type AdminSignInLink,
  type AdminStyle,
  analyticsExportQuerySchema,
  type Character,
  createAccountSchema,
  createCharacterSchema,
  createKeySchema,
  createPermalinkSchema,
  patchAccountSchema,
  patchCharacterSchema,
  patchKeyLimitsSchema,
} from '@promptpix/contracts';
import { createStyleSchema } from '../account-ops/style-schemas';
import { createAccountCharacter, patchAccountCharacter } from '../account-ops/characters';
import { createAccountKey, revokeAccountKey, rotateAccountKey, updateKeyLimits } from '../account-ops/keys';
import { permalinkUrl } from '../account-ops/permalinks';
import { webhookAdminRoutes } from './webhook-routes';
import { failedJobAdminRoutes } from './failed-job-routes';
import { APPROVAL_LINK_MINUTES, issueSignInLink, sendApprovalEmail } from '../dashboard/auth/mail';

type Account = NonNullable<Awaited<ReturnType<GatewayDeps['accounts']['findByHandle']>>>;

const accountView = (a: Account): AdminAccount => ({
  id: a.id,
  handle: a.handle,
  email: a.email,
  plan: a.plan,
  status: a.status,
  monthlyGenerations: a.monthlyGenerations,
  quotaUsed: a.quotaUsed,
  quotaPeriodStart: a.quotaPeriodStart.toISOString(),
  createdAt: a.createdAt.toISOString(),
});

const isUniqueViolation = (e: unknown) => (e as { code?: string })?.code === 'P2002';

/** Operator API under /admin/api/v1 (DECISIONS, "Accounts, keys, operator surface"). */
export function adminRoutes(deps: RouteGroupDeps<'admin'>) {
  const router = Router();
  router.use('/admin/api/v1', adminAuth(deps.adminToken), jsonBody(BODY_LIMITS.admin));

  /**
   * The approval e-mail with a sign-in link (dashboard/auth/mail.ts). A mail failure does not fail
   * the operator's call: it is logged and the answer says `mail: "failed"`.
   */
  async function approvalMail(account: Account): Promise<'sent' | 'failed'> {
    try {
      await sendApprovalEmail(deps, account);
      return 'sent';
    } catch (error) {
      deps.logger.warn('approval mail failed', { handle: account.handle, error });
      return 'failed';
    }
  }

  async function accountByHandle(handle: string): Promise<Account> {
    const account = createAccountSchema.shape.handle.safeParse(handle).success ? await deps.accounts.findByHandle(handle) : null;
    if (!account) throw new AppError('not_found', 'Account not found');
    return account;
  }

  router.post('/admin/api/v1/accounts', async (req, res) => {
    const input = parseOrThrow(createAccountSchema, req.body);
    try {
      const account = await deps.accounts.create(input);
      deps.logger.info('account created', { handle: account.handle, status: account.status, plan: account.plan });
      const mail = account.status === 'approved' ? await approvalMail(account) : undefined;
      res.status(201).json({ ...accountView(account), ...(mail && { mail }) });
    } catch (error) {
      if (isUniqueViolation(error))
        throw new AppError('invalid_request', 'Invalid request', { details: { formErrors: [], fieldErrors: { handle: ['Handle already taken'] } } });
      throw error;
    }
  });

  router.get('/admin/api/v1/accounts/:handle', async (req, res) => {
    res.json(accountView(await accountByHandle(req.params.handle)));
  });

  router.patch('/admin/api/v1/accounts/:handle', async (req, res) => {
    const patch = parseOrThrow(patchAccountSchema, req.body);
    const before = await accountByHandle(req.params.handle);
    const account = await deps.accounts.update(req.params.handle, patch);
    await deps.invalidation.publish({ kind: 'account', accountId: account.id });
    // Suspended or banned: signed out of the dashboard everywhere, now.
    if (account.status === 'suspended' || account.status === 'banned') await deps.dashboardSessions.removeForAccount(account.id);
    deps.logger.info('account updated', { handle: account.handle, ...patch });
    const mail = before.status === 'pending' && account.status === 'approved' ? await approvalMail(account) : undefined;
    res.json({ ...accountView(account), ...(mail && { mail }) });
  });

  /** A sign-in link for the operator to hand over when mail does not reach the user; never logged. */
  router.post('/admin/api/v1/accounts/:handle/sign-in-link', async (req, res) => {
    const account = await accountByHandle(req.params.handle);
    if (!maySignIn(account.status)) throw new AppError('conflict', `The account is ${account.status}: it cannot sign in`);
    const link = await issueSignInLink(deps, account, APPROVAL_LINK_MINUTES);
    deps.logger.info('sign-in link issued', { handle: account.handle });
    res.status(201).json({ url: link.url, expiresAt: link.expiresAt.toISOString() } satisfies AdminSignInLink);
  });

  router.post('/admin/api/v1/accounts/:handle/keys', async (req, res) => {
    const input = parseOrThrow(createKeySchema, req.body);
    const account = await accountByHandle(req.params.handle);
    const { id, key, kind, name, domains } = await createAccountKey(deps, account, input);
    res.status(201).json({ id, key, kind, name, domains } satisfies AdminCreatedKey);
  });

  router.delete('/admin/api/v1/keys/:id', async (req, res) => {
    await revokeAccountKey(deps, req.params.id);
    res.status(204).end();
  });

  router.patch('/admin/api/v1/keys/:id', async (req, res) => {
    const patch = parseOrThrow(patchKeyLimitsSchema, req.body);
    const { createdAt: _created, lastUsedAt: _used, budgetHitAt, ...key } = await updateKeyLimits(deps, req.params.id, patch);
    res.json({ ...key, budgetHitAt: budgetHitAt?.toISOString() ?? null } satisfies AdminKey);
  });

  router.post('/admin/api/v1/keys/:id/rotate', async (req, res) => {
    const { id, key, kind, name, domains, replaced } = await rotateAccountKey(deps, req.params.id);
    res.status(201).json({ id, key, kind, name, domains, replaced } satisfies AdminCreatedKey);
  });

  router.post('/admin/api/v1/accounts/:handle/permalinks', async (req, res) => {
    const input = parseOrThrow(createPermalinkSchema, req.body);
    const account = await accountByHandle(req.params.handle);
    try {
      const created = await deps.permalinks.create(account.id, input.name, input.imageIds);
      if (!created.ok) throw fieldError('imageIds', `Not images of this account: ${created.missing.join(', ')}`);
    } catch (error) {
      if (isUniqueViolation(error)) throw fieldError('name', 'A permalink with this name already exists');
      throw error;
    }
    await deps.invalidation.publish({ kind: 'permalinks', accountId: account.id });
    const url = permalinkUrl(deps.publicBaseUrl, account.handle, input.name);
    res.status(201).json({ name: input.name, url, imageIds: input.imageIds } satisfies AdminPermalink);
  });

  router.post('/admin/api/v1/accounts/:handle/styles', async (req, res) => {
    const input = parseOrThrow(createStyleSchema, req.body);
    const account = await accountByHandle(req.params.handle);
    assertBaseStyleAllowed(account.plan as PlanName, input.baseStyle);
    const style = await deps.styles.create(account.id, input);
    res.status(201).json({
      id: style.id,
      name: style.name,
      description: style.description,
      tags: style.tags,
      baseStyle: style.baseStyle,
      promptTemplate: style.promptTemplate,
    } satisfies AdminStyle);
  });

  const characterView = (c: { id: string; name: string; description: string | null; _count: { references: number } }): Character => ({
    id: c.id,
    name: c.name,
    description: c.description,
    referenceCount: c._count.references,
  });

  router.post('/admin/api/v1/accounts/:handle/characters', async (req, res) => {
    const input = parseOrThrow(createCharacterSchema, req.body);
    const account = await accountByHandle(req.params.handle);
    const character = await createAccountCharacter(deps, account.id, input);
    res.status(201).json(characterView(character));
  });

  router.patch('/admin/api/v1/accounts/:handle/characters/:id', async (req, res) => {
    const input = parseOrThrow(patchCharacterSchema, req.body);
    const account = await accountByHandle(req.params.handle);
    if (!isUuid(req.params.id)) throw new AppError('not_found', 'Character not found');
    const character = await patchAccountCharacter(deps, account.id, req.params.id, input);
    if (!character) throw new AppError('not_found', 'Character not found');
    res.json(characterView(character));
  });

  router.get('/admin/api/v1/accounts/:handle/analytics/export', async (req, res) => {
    const query = parseOrThrow(analyticsExportQuerySchema, req.query);
    const account = await accountByHandle(req.params.handle);
    await deps.events.flush();
    await streamEvents(res, query.format, deps.eventStore.export(account.id, query.from, query.to));
  });

  router.get('/admin/api/v1/queue', async (req, res) => {
    const limit = Math.min(Math.max(Number(req.query.limit) || 20, 1), 200);
    const [depth, failed] = await Promise.all([deps.queue.depth(), deps.queue.listFailed(limit)]);
    res.json({ depth, failed } satisfies AdminQueue);
  });

  router.post('/admin/api/v1/queue/failed/:jobId/retry', async (req, res) => {
    if (!(await deps.queue.retryFailed(req.params.jobId))) throw new AppError('not_found', 'No failed job with this id is kept');
    deps.logger.info('failed job retried by operator', { jobId: req.params.jobId });
    res.status(202).json({ jobId: req.params.jobId, status: 'queued' } satisfies AdminRetried);
  });

  router.use(webhookAdminRoutes(deps, accountByHandle));
  router.use(failedJobAdminRoutes(deps, accountByHandle));

  router.post('/admin/api/v1/library/seed', async (_req, res) => {
    const result = await seedLibrary(deps);
    deps.logger.info('library seed', result);
    res.status(result.seeded > 0 ? 201 : 200).json(result satisfies AdminLibrarySeed);
  });

  return router;
}
