import { Router, type Request } from 'express';
import { IMAGE_INPUT_LIMITS, type Upload } from '@promptpix/contracts';
import { fieldError } from '@promptpix/core';
import type { GatewayDeps } from '../../deps';
import { authenticate, authOf } from '../middleware/auth';
import { rateLimit } from '../middleware/rate-limit';
import { readMultipart } from '../multipart';

type Deps = Pick<GatewayDeps, 'credentials' | 'now' | 'rateLimiter' | 'uploadSlots' | 'uploads'>;

/** One image under the field `image`, nothing else. */
export const UPLOAD_BODY = { fileFields: ['image'], maxFiles: 1, maxFileBytes: IMAGE_INPUT_LIMITS.maxBytes, maxFields: 0, maxFieldBytes: 0 } as const;

/**
 * Reads one image (multipart, field `image`) of an account whose caller is already checked, within
 * an upload slot, and stores it (checked from its header, stripped of metadata, as PNG). `created`
 * is false when the account already held the same image (the same upload, its expiry renewed).
 * Shared by POST /api/v1/uploads and the dashboard's POST /dashboard/api/uploads.
 */
export async function receiveUpload(
  deps: Pick<GatewayDeps, 'uploadSlots' | 'uploads'>,
  req: Request,
  accountId: string,
): Promise<{ upload: Upload; created: boolean }> {
  const release = deps.uploadSlots.take(accountId);
  try {
    const [file] = (await readMultipart(req, UPLOAD_BODY)).files;
    if (!file) throw fieldError('image', 'Expected an image file in the field "image"');
    return await deps.uploads.upload(accountId, file.data);
  } finally {
    release();
  }
}

/**
 * POST /api/v1/uploads: secret key; one image (multipart, field `image`), checked from its header,
 * stripped of metadata and stored as PNG for edits; 201 with its id (200 when the account already
 * holds the same image: the same upload, its expiry renewed). The body is read only after the key,
 * the rate limit and an upload slot.
 */
export const uploadRoutes = (deps: Deps) =>
  Router().post('/api/v1/uploads', authenticate(deps.credentials, { allow: 'secret' }), rateLimit(deps.rateLimiter, 'api', deps.now), async (req, res) => {
    const { upload, created } = await receiveUpload(deps, req, authOf(res).account.id);
    res.status(created ? 201 : 200).json(upload);
  });
