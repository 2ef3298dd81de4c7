import { createHash } from 'node:crypto';
import type { Request } from 'express';
import {
  AppError,
  canonicalJson,
  fieldError,
  IDEMPOTENCY_PENDING_SECONDS,
  IDEMPOTENCY_TTL_SECONDS,
  parseIdempotencyKey,
  type IdempotencyStore,
  type StoredResponse,
} from '@promptpix/core';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';

export const IdempotencyMessages = {
  mismatch: 'This Idempotency-Key was used with a different request body',
  inProgress: 'A request with this Idempotency-Key is still in progress',
} as const;

/**
 * Runs `answer` once per (account, Idempotency-Key): a retry with the same key and body gets the
 * first response again (with `Idempotent-Replayed: true`) for 24 hours; the same key with another
 * body is a 409. Errors are not kept, so a request that failed can be retried with its key.
 * Without the header, `answer` simply runs.
 */
export async function idempotent(
  store: IdempotencyStore,
  req: Request,
  scope: string,
  body: unknown,
  answer: () => Promise<StoredResponse>,
): Promise<StoredResponse> {
  const parsed = parseIdempotencyKey(req.get(IDEMPOTENCY_HEADER));
  if ('error' in parsed) throw fieldError(IDEMPOTENCY_HEADER, parsed.error);
  if (parsed.key === null) return answer();

  const key = `${scope}:${parsed.key}`;
  const fingerprint = createHash('sha256').update(canonicalJson(body)).digest('base64url');
  const begun = await store.begin(key, fingerprint, IDEMPOTENCY_PENDING_SECONDS);
  if (begun.kind === 'replay') return { ...begun.response, headers: { ...begun.response.headers, [REPLAYED_HEADER]: 'true' } };
  if (begun.kind === 'mismatch') throw new AppError('conflict', IdempotencyMessages.mismatch);
  if (begun.kind === 'in_progress') throw new AppError('conflict', IdempotencyMessages.inProgress, {}, { 'Retry-After': '1' });

  let response: StoredResponse;
  try {
    response = await answer();
  } catch (error) {
    await store.abandon(key, fingerprint).catch(() => undefined);
    throw error;
  }
  // The work is done: a store outage must not turn it into an error (the claim expires on its own).
  await store.finish(key, fingerprint, response, IDEMPOTENCY_TTL_SECONDS).catch(() => undefined);
  return response;
}
