import { Router } from 'express';
import { IMAGE_INPUT_LIMITS } from '@promptpix/contracts';
import { fieldError } from '@promptpix/core';
import type { GatewayDeps } from '../../deps';
import { authenticate, authOf } from '../middleware/auth';
import { rateLimit } from '../middleware/rate-limit';
import { readMultipart } from '../multipart';

type Deps = Pick<GatewayDeps, 'credentials' | 'now' | 'rateLimiter' | 'uploadSlots' | 'uploads'>;

/** One image under the field `image`, nothing else. */
export const UPLOAD_BODY = { fileFields: ['image'], maxFiles: 1, maxFileBytes: IMAGE_INPUT_LIMITS.maxBytes, maxFields: 0, maxFieldBytes: 0 } as const;

/**
 * POST /api/v1/uploads: secret key; one image (multipart, field `image`), checked from its header,
 * stripped of metadata and stored as PNG for edits; 201 with its id (200 when the account already
 * holds the same image: the same upload, its expiry renewed). The body is read only after the key,
 * the rate limit and an upload slot.
 */
export const uploadRoutes = (deps: Deps) =>
  Router().post('/api/v1/uploads', authenticate(deps.credentials, { allow: 'secret' }), rateLimit(deps.rateLimiter, 'api', deps.now), async (req, res) => {
    const { account } = authOf(res);
    const release = deps.uploadSlots.take(account.id);
    try {
      const [file] = (await readMultipart(req, UPLOAD_BODY)).files;
      if (!file) throw fieldError('image', 'Expected an image file in the field "image"');
      const { upload, created } = await deps.uploads.upload(account.id, file.data);
      res.status(created ? 201 : 200).json(upload);
    } finally {
      release();
    }
  });
