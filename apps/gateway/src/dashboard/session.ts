import type { Request, RequestHandler, Response } from 'express';
import { parse as parseCookies } from 'cookie';
import { AppError, accountStatusError, maySignIn, constantTimeEqual, sessionVerdict } from '@promptpix/core';
import type { DashboardSessionWithAccount } from '@promptpix/db';
import type { GatewayDeps } from '../deps';
import { CSRF_HEADER, SESSION_COOKIE } from '@promptpix/contracts';

const DAY_MS = 86_400_000;
/** Extend a session's expiry at most once a minute per browser, not on every request. */
const TOUCH_AFTER_MS = 60_000;
const COOKIE_PATH = '/dashboard';

export type DashboardAccountRow = DashboardSessionWithAccount['account'];

export interface DashboardLocals {
  session: DashboardSessionWithAccount;
  account: DashboardAccountRow;
}

/** The signed-in session of this request, set by `loadSession`; undefined when signed out. */
export const dashboardOf = (res: Response): DashboardLocals | undefined => res.locals.dashboard as DashboardLocals | undefined;

/** The signed-in session; only for handlers mounted behind `requireSession`. */
export const signedIn = (res: Response): DashboardLocals => {
  const found = dashboardOf(res);
  if (!found) throw new AppError('unauthorized', 'Sign in required');
  return found;
};

export type DashboardSessionDeps = Pick<GatewayDeps, 'dashboardSessions' | 'dashboard' | 'now'>;

export function setSessionCookie(res: Response, deps: DashboardSessionDeps, token: string, expiresAt: Date): void {
  res.cookie(SESSION_COOKIE, token, { httpOnly: true, sameSite: 'lax', secure: deps.dashboard.secureCookie, path: COOKIE_PATH, expires: expiresAt });
}

export function clearSessionCookie(res: Response, deps: DashboardSessionDeps): void {
  res.clearCookie(SESSION_COOKIE, { httpOnly: true, sameSite: 'lax', secure: deps.dashboard.secureCookie, path: COOKIE_PATH });
}

/** Opens a session for an account and sets its cookie; returns the CSRF token for the browser. */
export async function openSession(res: Response, deps: DashboardSessionDeps, accountId: string): Promise<string> {
  const now = deps.now();
  const session = await deps.dashboardSessions.create(accountId, new Date(now.getTime() + deps.dashboard.sessionDays * DAY_MS), now);
  setSessionCookie(res, deps, session.token, session.expiresAt);
  return session.csrfToken;
}

const cookieToken = (req: Request): string | undefined => {
  const header = req.headers.cookie;
  return header ? parseCookies(header)[SESSION_COOKIE] : undefined;
};

/**
 * Reads the session cookie into `res.locals.dashboard`. An expired session, or one whose account
 * was suspended or banned since, is deleted and the request goes on signed out.
 */
export const loadSession =
  (deps: DashboardSessionDeps): RequestHandler =>
  async (req, res, next) => {
    const token = cookieToken(req);
    if (!token) return next();
    const session = await deps.dashboardSessions.findByToken(token);
    if (!session) {
      clearSessionCookie(res, deps);
      return next();
    }
    const now = deps.now();
    const lifetimeMs = deps.dashboard.sessionDays * DAY_MS;
    const verdict = sessionVerdict(session, now, lifetimeMs, TOUCH_AFTER_MS);
    if (verdict === 'expired' || !maySignIn(session.account.status)) {
      await (verdict === 'expired' ? deps.dashboardSessions.remove(session.id) : deps.dashboardSessions.removeForAccount(session.accountId));
      clearSessionCookie(res, deps);
      return next();
    }
    if (verdict === 'touch') {
      const expiresAt = new Date(now.getTime() + lifetimeMs);
      await deps.dashboardSessions.touch(session.id, now, expiresAt);
      setSessionCookie(res, deps, token, expiresAt);
    }
    res.locals.dashboard = { session, account: session.account } satisfies DashboardLocals;
    next();
  };

export const requireSession = (): RequestHandler => (_req, res, next) => {
  signedIn(res);
  next();
};

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** No Origin (not a cross-site browser request), or this service's own origin. */
export const fromThisOrigin = (req: Request, publicBaseUrl: string): boolean => {
  const origin = req.get('origin');
  return !origin || origin === new URL(publicBaseUrl).origin || origin === `${req.protocol}://${req.get('host')}`;
};

/**
 * State-changing requests must carry the session's CSRF token in `X-CSRF-Token` (a header a
 * cross-site form cannot set), and, when the browser sends an Origin, come from this origin.
 */
export const requireCsrf =
  (publicBaseUrl: string): RequestHandler =>
  (req, res, next) => {
    if (SAFE_METHODS.has(req.method)) return next();
    const { session } = signedIn(res);
    const token = req.get(CSRF_HEADER);
    if (!fromThisOrigin(req, publicBaseUrl) || !token || !constantTimeEqual(token, session.csrfToken)) throw new AppError('forbidden', 'Invalid CSRF token');
    next();
  };

/** Everything past the session view needs an approved account; a pending one waits. */
export const requireApproved = (): RequestHandler => (_req, res, next) => {
  const refusal = accountStatusError(signedIn(res).account.status);
  if (refusal) throw refusal;
  next();
};
