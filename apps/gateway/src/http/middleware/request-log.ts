import type { RequestHandler } from 'express';
import type { Logger } from '@promptpix/runtime';

/** One line per request. The path is logged without its query string (it may carry a key). */
export const requestLog =
  (logger: Logger): RequestHandler =>
  (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const level = res.statusCode >= 500 ? 'error' : 'info';
      // winston formats (and scrubs) a line before its transports drop it by level: skip that work.
      if (!logger.isLevelEnabled(level)) return;
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      logger.log(level, 'request', { method: req.method, path: req.path, status: res.statusCode, ms: Math.round(ms * 10) / 10 });
    });
    next();
  };
