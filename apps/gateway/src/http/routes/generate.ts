import { Router } from 'express';
import { generateBodySchema, type GenerateBody } from '@promptpix/contracts';
import { fieldError, noCloseMatch, quotaHeaders, webhookUrlRefusal, type StoredResponse } from '@promptpix/core';
import type { GatewayDeps } from '../../deps';
import { cancelAtOf, watchDeadline } from '../cancel-after';
import { idempotent } from '../idempotency';
import { checkedGenerationRequest } from '../generation-request';
import { authenticate, authOf, callerOf, type AuthContext } from '../middleware/auth';
import { rateLimit } from '../middleware/rate-limit';
import { parseOrThrow } from '../validate';

async function generate(deps: GatewayDeps, auth: AuthContext, body: GenerateBody, cancelAt: string | null): Promise<StoredResponse> {
  const { account } = auth;
  // Refused at delivery anyway; a literal private address or localhost can be told now.
  const webhookRefusal = body.webhookUrl && !deps.webhookPrivateAddressesAllowed ? webhookUrlRefusal(body.webhookUrl) : null;
  if (webhookRefusal) throw fieldError('webhookUrl', `Must reach a public address, not a ${webhookRefusal}`);
  const request = await checkedGenerationRequest(deps, account, { ...body, ageBucket: body.ageBuckets?.[0] });
  if (body.mode === 'instant') {
    // Instant: the closest shared-library image now; no job, no quota, every plan.
    const result = await deps.instant.match(account.id, { prompt: body.prompt, style: body.style, ageBucket: body.ageBuckets?.[0] });
    if (!result) throw noCloseMatch();
    return { status: 200, headers: {}, body: result };
  }
  const { job, quota, outcome } = await deps.generations.start(account, request, {
    caller: callerOf(auth, deps.activeJobsPerKey),
    webhookUrl: body.webhookUrl,
    cancelAt: cancelAt ?? undefined,
  });
  // The record carries the deadline of work this request started (not of a joined job or a cache hit).
  if (cancelAt && (outcome === 'generated' || outcome === 'derived')) watchDeadline(deps, job.jobId, cancelAt);
  // The spec's 202 body is always `queued`; a cache hit's job is already completed when polled.
  return { status: 202, headers: quotaHeaders(quota), body: { jobId: job.jobId, status: 'queued' } };
}

/** POST /api/v1/generate: secret key; 202 with a job to poll (generate mode), 200 in instant mode; Idempotency-Key and Cancel-After honoured. */
export const generateRoutes = (deps: GatewayDeps) =>
  Router().post('/api/v1/generate', authenticate(deps.credentials, { allow: 'secret' }), rateLimit(deps.rateLimiter, 'api', deps.now), async (req, res) => {
    const body = parseOrThrow(generateBodySchema, req.body);
    const auth = authOf(res);
    const cancelAt = cancelAtOf(req, deps.now());
    const answer = await idempotent(deps.idempotency, req, auth.account.id, body, () => generate(deps, auth, body, cancelAt));
    res.status(answer.status).set(answer.headers).json(answer.body);
  });
