import cors from 'cors';

/**
 * Preflight carries no key (DECISIONS, CORS): answer every OPTIONS under /api/v1/ with 204 and
 * `*`. The real origin check happens on the actual request, against the key's domain list.
 */
export const corsPreflight = () =>
  cors({
    origin: '*',
    methods: ['GET', 'POST', 'OPTIONS'],
    allowedHeaders: ['Content-Type', 'Authorization'],
    maxAge: 600,
    optionsSuccessStatus: 204,
    preflightContinue: false,
  });
