import { Router } from 'express';
import { generateBodySchema, type GenerationRequest } from '@promptpix/contracts';
import { fieldError, quotaHeaders } from '@promptpix/core';
import type { GatewayDeps } from '../../deps';
import { authenticate, authOf } from '../middleware/auth';
import { rateLimit } from '../middleware/rate-limit';
import { parseOrThrow } from '../validate';

/** POST /api/v1/generate: secret key; 202 with a job to poll (generate mode). */
export const generateRoutes = (deps: GatewayDeps) =>
  Router().post('/api/v1/generate', authenticate(deps.apiKeys, { allow: 'secret' }), rateLimit(deps.rateLimiter, 'api', deps.now), async (req, res) => {
    const body = parseOrThrow(generateBodySchema, req.body);
    if (body.mode === 'instant') throw fieldError('mode', 'Instant mode is not enabled on this server yet');
    if (body.character) throw fieldError('character', 'Unknown character');
    const request: GenerationRequest = {
      prompt: body.prompt,
      style: body.style,
      strength: body.strength,
      width: body.width,
      height: body.height,
      format: body.format,
      ageBucket: body.ageBuckets?.[0],
    };
    const { account } = authOf(res);
    const { job, quota } = await deps.generations.start(account, request);
    res.status(202).set(quotaHeaders(quota)).json({ jobId: job.jobId, status: job.status });
  });

