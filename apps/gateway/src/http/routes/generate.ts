import { Router } from 'express';
import { generateBodySchema, type GenerateBody, ImageInputMessages, type InstantResult } from '@promptpix/contracts';
import { fieldError, noCloseMatch, quotaHeaders, webhookUrlRefusal, type Caller, type QuotaAccount, type Started, type StoredResponse } from '@promptpix/core';
import type { GatewayDeps } from '../../deps';
import { cancelAtOf, watchDeadline } from '../cancel-after';
import { idempotent } from '../idempotency';
import { checkedGenerationRequest } from '../generation-request';
import { authenticate, authOf, callerOf } from '../middleware/auth';
import { rateLimit } from '../middleware/rate-limit';
import { parseOrThrow } from '../validate';

/** What one generate request uses, whoever sends it (runGenerate). */
export type GenerateDeps = Pick<
  GatewayDeps,
  | 'activeJobsPerKey'
  | 'cancellation'
  | 'characters'
  | 'credentials'
  | 'generations'
  | 'idempotency'
  | 'instant'
  | 'logger'
  | 'models'
  | 'now'
  | 'promptSafety'
  | 'rateLimiter'
  | 'styleResolver'
  | 'uploads'
  | 'webhookPrivateAddressesAllowed'
>;

export type GenerateOutcome = { mode: 'instant'; result: InstantResult } | ({ mode: 'generate' } & Started);

/**
 * One generate request, whoever sends it (the public API with a key, the dashboard's playground
 * with a session): the same checks, instant match, cache, quota and job cap.
 */
export async function runGenerate(
  deps: GenerateDeps,
  account: QuotaAccount,
  caller: Caller,
  body: GenerateBody,
  cancelAt: string | null = null,
): Promise<GenerateOutcome> {
  // Refused at delivery anyway; a literal private address or localhost can be told now.
  const webhookRefusal = body.webhookUrl && !deps.webhookPrivateAddressesAllowed ? webhookUrlRefusal(body.webhookUrl) : null;
  if (webhookRefusal) throw fieldError('webhookUrl', `Must reach a public address, not a ${webhookRefusal}`);
  if (body.mode === 'instant' && body.image !== undefined) throw fieldError('image', ImageInputMessages.instantTakesNoImage);
  const request = await checkedGenerationRequest(deps, account, { ...body, ageBucket: body.ageBuckets?.[0] });
  if (body.mode === 'instant') {
    // Instant: the closest shared-library image now; no job, no quota, every plan.
    const result = await deps.instant.match(account.id, { prompt: body.prompt, style: body.style, ageBucket: body.ageBuckets?.[0] });
    if (!result) throw noCloseMatch();
    return { mode: 'instant', result };
  }
  const started = await deps.generations.start(account, request, { caller, webhookUrl: body.webhookUrl, cancelAt: cancelAt ?? undefined });
  // The record carries the deadline of work this request started (not of a joined job or a cache hit).
  if (cancelAt && (started.outcome === 'generated' || started.outcome === 'derived')) watchDeadline(deps, started.job.jobId, cancelAt);
  return { mode: 'generate', ...started };
}

/** The public API's answer: 200 with the match in instant mode; else the spec's 202 body, always `queued` (a cache hit's job is already completed when polled). */
const publicAnswer = (outcome: GenerateOutcome): StoredResponse =>
  outcome.mode === 'instant'
    ? { status: 200, headers: {}, body: outcome.result }
    : { status: 202, headers: quotaHeaders(outcome.quota), body: { jobId: outcome.job.jobId, status: 'queued' } };

/** POST /api/v1/generate: secret key; 202 with a job to poll (generate mode), 200 in instant mode; Idempotency-Key and Cancel-After honoured. */
export const generateRoutes = (deps: GenerateDeps) =>
  Router().post('/api/v1/generate', authenticate(deps.credentials, { allow: 'secret' }), rateLimit(deps.rateLimiter, 'api', deps.now), async (req, res) => {
    const body = parseOrThrow(generateBodySchema, req.body);
    const auth = authOf(res);
    const cancelAt = cancelAtOf(req, deps.now());
    const answer = await idempotent(deps.idempotency, req, auth.account.id, body, async () =>
      publicAnswer(await runGenerate(deps, auth.account, callerOf(auth, deps.activeJobsPerKey), body, cancelAt)),
    );
    res.status(answer.status).set(answer.headers).json(answer.body);
  });
