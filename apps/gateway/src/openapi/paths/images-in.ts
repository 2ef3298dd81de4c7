import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { ErrorMessages, errorBodySchema, generateAcceptedSchema, IMAGE_INPUT_LIMITS, upscaleBodySchema, uploadSchema } from '@promptpix/contracts';
import { upscalePlacesMessage } from '@promptpix/core';
import { UploadSlotMessages } from '../../http/upload-slots';
import { auth, errors, json, notFound, quotaHeaders, rateLimitedKeyedErrors, rateLimitHeaders, retryAfter, withRateLimitHeaders } from '../shared';

/** Extensions for images sent in (docs/api/images-in.md): uploads to edit from, and upscaling. */
export const imagesInPaths: ZodOpenApiPathsObject = {
  '/api/v1/uploads': {
    post: {
      tags: ['Images'],
      operationId: 'uploadImage',
      summary: 'Upload an image to edit (extension)',
      description:
        `One PNG, JPEG or WebP file under the field \`image\`, at most ${IMAGE_INPUT_LIMITS.maxBytes / (1024 * 1024)} MiB and ${IMAGE_INPUT_LIMITS.maxSide}×${IMAGE_INPUT_LIMITS.maxSide} pixels (checked from the header before any decoding). ` +
        'Stored upright as PNG with no metadata (EXIF, GPS, XMP removed), under the account and counted against its upload budget; it expires UPLOAD_TTL_HOURS (24) after its last use. ' +
        'Pass the answer’s `id` as `image` or `mask` to POST /api/v1/generate. The same image uploaded again answers 200 with the same upload. Secret keys only.',
      security: auth.secret,
      requestBody: {
        required: true,
        content: { 'multipart/form-data': { schema: z.object({ image: z.string().meta({ format: 'binary', description: 'The image file' }) }) } },
      },
      responses: {
        ...rateLimitedKeyedErrors,
        '201': json(uploadSchema, 'Stored', rateLimitHeaders),
        '200': json(uploadSchema, 'The account already holds this image: the same upload, its expiry renewed', rateLimitHeaders),
        '400': withRateLimitHeaders(errors.badRequest),
        '409': json(errorBodySchema, 'The account’s live uploads would pass UPLOAD_BYTES_PER_ACCOUNT (`code: upload_budget_exceeded`)', rateLimitHeaders),
        '413': json(errorBodySchema, 'The file is over the byte limit (`details.fieldErrors.image`)', rateLimitHeaders),
        '415': json(errorBodySchema, 'Not a multipart/form-data body'),
        '429': json(errorBodySchema, `The plan’s rate limit, or "${UploadSlotMessages.account}"`, { ...rateLimitHeaders, ...retryAfter }),
        '503': json(errorBodySchema, `"${UploadSlotMessages.busy}" (the gateway reads few images at once), or a dependency is down`, retryAfter),
      },
    },
  },
  '/api/v1/image/{id}/upscale': {
    post: {
      tags: ['Images'],
      operationId: 'upscaleImage',
      summary: 'Upscale one of your images, 2× or 4× (extension)',
      description:
        'A job like a generation’s, whose image is a larger copy (derived from this one, owned by the account), made by the backend’s upscaler where it has one, else resampled. ' +
        'One quota unit; the same upscale again is the stored copy, free. At most 8192 pixels on a side.',
      security: auth.secret,
      requestParams: { path: z.object({ id: z.string().meta({ description: 'An imageId' }) }) },
      requestBody: { required: false, content: { 'application/json': { schema: upscaleBodySchema } } },
      responses: {
        ...rateLimitedKeyedErrors,
        '202': json(generateAcceptedSchema, 'The upscale job was queued', { ...quotaHeaders, ...rateLimitHeaders }),
        '400': withRateLimitHeaders(errors.badRequest),
        '402': withRateLimitHeaders(errors.quotaExceeded),
        '404': notFound(ErrorMessages.imageNotFound, 'Unknown, or not owned by the caller', rateLimitHeaders),
        '409': json(
          errorBodySchema.meta({ example: { error: upscalePlacesMessage } }),
          'The image has no place left for another derived copy',
          rateLimitHeaders,
        ),
        '429': errors.rateLimited,
      },
    },
  },
};
