import { Router, type Request, type Response } from 'express';
import { AppError, accountStatusError, maySignIn } from '@promptpix/core';
import type { GatewayDeps } from '../../deps';
import { rateLimitedError } from '../../http/middleware/rate-limit';
import { parseOrThrow } from '../../http/validate';
import { signInConfirmSchema, signInRequestSchema, type DashboardAccount, type SessionView, type SignInRequested } from '@promptpix/contracts';
import { clearSessionCookie, dashboardOf, fromThisOrigin, openSession, requireCsrf, requireSession, signedIn, type DashboardAccountRow } from '../session';
import { sendSignInEmail } from './mail';

type Deps = Pick<GatewayDeps, 'accounts' | 'dashboard' | 'dashboardSessions' | 'logger' | 'mailer' | 'now' | 'publicBaseUrl' | 'rateLimiter' | 'signInLinks'>;

export const SIGN_IN_REQUESTED: SignInRequested = { message: 'If an account uses that address, a sign-in link is on its way.' };
export const SIGN_IN_ERRORS = {
  invalid: 'Invalid sign-in link',
  expired: 'This sign-in link has expired',
  used: 'This sign-in link has already been used',
} as const;

/** Sign-in requests: per address (mail bombing) and per client IP (address probing), in 15 minutes. */
export const SIGN_IN_WINDOW_MS = 15 * 60_000;
export const SIGN_IN_PER_ADDRESS = 5;
export const SIGN_IN_PER_IP = 30;

const accountView = (a: DashboardAccountRow): DashboardAccount => ({
  handle: a.handle,
  email: a.email,
  plan: a.plan,
  // loadSession and confirm let only pending and approved accounts through.
  status: a.status === 'approved' ? 'approved' : 'pending',
});

/**
 * A cross-site page must not drive these POSTs (e.g. signing a victim's browser in to the
 * attacker's account with the attacker's link): when the browser says where it comes from, it is here.
 */
function refuseCrossSite(req: Request, publicBaseUrl: string): void {
  if (!fromThisOrigin(req, publicBaseUrl)) throw new AppError('forbidden', 'Invalid CSRF token');
}

/** POST sign-in, POST sign-in/confirm, GET session, POST sign-out (see @promptpix/contracts, dashboard.ts). */
export function signInRoutes(deps: Deps) {
  const router = Router();

  router.post('/dashboard/api/sign-in', async (req, res: Response) => {
    refuseCrossSite(req, deps.publicBaseUrl);
    const { email } = parseOrThrow(signInRequestSchema, req.body);
    const at = deps.now().getTime();
    for (const [bucket, limit] of [
      [`dashboard-sign-in:ip:${req.ip ?? 'unknown'}`, SIGN_IN_PER_IP],
      [`dashboard-sign-in:email:${email.toLowerCase()}`, SIGN_IN_PER_ADDRESS],
    ] as const) {
      const decision = await deps.rateLimiter.hit(bucket, limit, SIGN_IN_WINDOW_MS, at);
      if (!decision.allowed) throw rateLimitedError(decision.retryAfterMs);
    }
    // Answered before any lookup or mail: the same answer, as fast, whether or not the address is known.
    res.status(202).json(SIGN_IN_REQUESTED);
    void (async () => {
      const accounts = (await deps.accounts.findByEmail(email)).filter((a) => maySignIn(a.status));
      for (const account of accounts) {
        await sendSignInEmail(deps, account).catch((error: unknown) => deps.logger.warn('sign-in mail failed', { handle: account.handle, error }));
      }
    })().catch((error: unknown) => deps.logger.warn('sign-in request failed', { error }));
  });

  router.post('/dashboard/api/sign-in/confirm', async (req, res) => {
    refuseCrossSite(req, deps.publicBaseUrl);
    const { token } = parseOrThrow(signInConfirmSchema, req.body);
    const used = await deps.signInLinks.consume(token, deps.now());
    if (used.outcome === 'unknown') throw new AppError('invalid_request', SIGN_IN_ERRORS.invalid);
    if (used.outcome !== 'ok') throw new AppError('gone', SIGN_IN_ERRORS[used.outcome]);
    const account = await deps.accounts.findById(used.accountId);
    if (!account) throw new AppError('invalid_request', SIGN_IN_ERRORS.invalid);
    if (!maySignIn(account.status)) throw accountStatusError(account.status)!;
    // A browser signing in again leaves its previous session behind: end it.
    const previous = dashboardOf(res);
    if (previous) await deps.dashboardSessions.remove(previous.session.id);
    const csrfToken = await openSession(res, deps, account.id);
    deps.logger.info('dashboard sign-in', { handle: account.handle });
    res.json({ account: accountView(account), csrfToken } satisfies SessionView);
  });

  router.get('/dashboard/api/session', (_req, res) => {
    const { session, account } = signedIn(res);
    res.json({ account: accountView(account), csrfToken: session.csrfToken } satisfies SessionView);
  });

  router.post('/dashboard/api/sign-out', requireSession(), requireCsrf(deps.publicBaseUrl), async (_req, res) => {
    const { session, account } = signedIn(res);
    await deps.dashboardSessions.remove(session.id);
    clearSessionCookie(res, deps);
    deps.logger.info('dashboard sign-out', { handle: account.handle });
    res.status(204).end();
  });

  return router;
}
