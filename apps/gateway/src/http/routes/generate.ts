import { Router } from 'express';
import { generateBodySchema, type GenerationRequest } from '@promptpix/contracts';
import { fieldError, noCloseMatch, quotaHeaders } from '@promptpix/core';
import type { GatewayDeps } from '../../deps';
import { authenticate, authOf } from '../middleware/auth';
import { rateLimit } from '../middleware/rate-limit';
import { parseOrThrow } from '../validate';

/** POST /api/v1/generate: secret key; 202 with a job to poll (generate mode). */
export const generateRoutes = (deps: GatewayDeps) =>
  Router().post('/api/v1/generate', authenticate(deps.credentials, { allow: 'secret' }), rateLimit(deps.rateLimiter, 'api', deps.now), async (req, res) => {
    const body = parseOrThrow(generateBodySchema, req.body);
    const { account } = authOf(res);
    if (body.character && !(await deps.characters.exists(account.id, body.character))) throw fieldError('character', 'Unknown character');
    const style = await deps.styleResolver.resolve(account, body.style);
    if (body.mode === 'instant') {
      // Instant: the closest shared-library image now; no job, no quota, every plan.
      const result = await deps.instant.match(account.id, { prompt: body.prompt, style: body.style, ageBucket: body.ageBuckets?.[0] });
      if (!result) throw noCloseMatch();
      return void res.status(200).json(result);
    }
    const request: GenerationRequest = {
      prompt: body.prompt,
      ...style,
      character: body.character,
      strength: body.strength,
      width: body.width,
      height: body.height,
      format: body.format,
      ageBucket: body.ageBuckets?.[0],
    };
    const { job, quota } = await deps.generations.start(account, request);
    // The spec's 202 body is always `queued`; a cache hit's job is already completed when polled.
    res.status(202).set(quotaHeaders(quota)).json({ jobId: job.jobId, status: 'queued' });
  });

