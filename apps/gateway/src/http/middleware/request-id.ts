import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import { runWithRequestId } from '@promptpix/runtime';

const VALID_ID = /^[A-Za-z0-9._-]{8,64}$/;

/** Takes a well-formed X-Request-Id from the caller or makes one; every log line of the request carries it. */
export const requestId = (): RequestHandler => (req, res, next) => {
  const incoming = req.get('x-request-id');
  const id = incoming && VALID_ID.test(incoming) ? incoming : randomUUID();
  res.locals.requestId = id;
  res.setHeader('X-Request-Id', id);
  runWithRequestId(id, next);
};
