import express, { type RequestHandler } from 'express';
import { AppError } from '@promptpix/core';
import { ErrorMessages } from '@promptpix/contracts';

/**
 * Request bodies are read only once the caller is known: each door (API key, operator token,
 * dashboard session) parses after it has checked its credentials, with its own limit. Before
 * that, nothing is read: an unauthenticated request is answered from its headers alone and Node
 * discards the unread body without buffering it.
 */
export const BODY_LIMITS = {
  /** Routes a stranger may call with a body (dashboard sign-in). */
  public: '8kb',
  /** API routes, after the key is checked (DECISIONS: JSON bodies over 1 MiB are 413). */
  api: '1mb',
  /** Operator API, after the admin token: character photos arrive as base64 JSON. */
  admin: '100mb',
  /** Dashboard character photos (up to 10 data: URLs), after the session is checked. */
  characterPhotos: '60mb',
} as const;

const hasBody = (method: string) => method !== 'GET' && method !== 'HEAD';

/**
 * Nothing in this API takes a compressed request body, and inflating one is how a few kB on the
 * wire become a gigabyte in memory: refuse it (415) from the headers, before any byte is read.
 */
export const refuseEncodedBodies = (): RequestHandler => (req, _res, next) => {
  const encoding = req.get('content-encoding')?.trim().toLowerCase();
  if (hasBody(req.method) && encoding && encoding !== 'identity') throw new AppError('unsupported_media_type', ErrorMessages.unsupportedEncoding);
  next();
};

/**
 * A JSON body parser for a door that has authenticated its caller. `strict: false` lets a JSON
 * primitive through to validation ("Invalid request"); only unparsable text is "Invalid JSON".
 * `inflate: false` backs up `refuseEncodedBodies`.
 */
export const jsonBody = (limit: string): RequestHandler => {
  const parser = express.json({ limit, strict: false, inflate: false, type: ['application/json', 'application/*+json'] });
  return (req, res, next) => (hasBody(req.method) ? parser(req, res, next) : next());
};
