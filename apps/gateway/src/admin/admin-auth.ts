import type { RequestHandler } from 'express';
import { AppError, constantTimeEqual } from '@promptpix/core';

/** Operator API: `Authorization: Bearer <ADMIN_TOKEN>`, compared in constant time. */
export const adminAuth =
  (token: string | undefined): RequestHandler =>
  (req, _res, next) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '');
    if (!token || !match || !constantTimeEqual(match[1], token)) throw new AppError('unauthorized', 'Invalid admin token');
    next();
  };
