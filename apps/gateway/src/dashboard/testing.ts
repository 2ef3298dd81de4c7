import request from 'supertest';
import type { Infrastructure } from '@promptpix/runtime';
import { CSRF_HEADER, SESSION_COOKIE } from '@promptpix/contracts';

export interface DashboardTestSession {
  /** The Cookie header value. */
  cookie: string;
  csrfToken: string;
  get(path: string): request.Test;
  post(path: string, body?: unknown): request.Test;
  patch(path: string, body?: unknown): request.Test;
  delete(path: string): request.Test;
}

/**
 * A signed-in dashboard browser for tests of the signed-in API: the session is opened through the
 * repository (as the sign-in link would), and every request carries the cookie and CSRF token.
 */
export async function dashboardSessionFor(service: { baseUrl: string; infra: Infrastructure }, handle: string): Promise<DashboardTestSession> {
  const account = await service.infra.accounts.findByHandle(handle);
  if (!account) throw new Error(`no account ${handle}`);
  const session = await service.infra.dashboardSessions.create(account.id, new Date(Date.now() + 86_400_000));
  const cookie = `${SESSION_COOKIE}=${session.token}`;
  const withHeaders = (test: request.Test) => test.set('Cookie', cookie).set(CSRF_HEADER, session.csrfToken);
  const agent = request(service.baseUrl);
  return {
    cookie,
    csrfToken: session.csrfToken,
    get: (path) => withHeaders(agent.get(path)),
    post: (path, body) => withHeaders(agent.post(path)).send(body as object),
    patch: (path, body) => withHeaders(agent.patch(path)).send(body as object),
    delete: (path) => withHeaders(agent.delete(path)),
  };
}
