import { isDeepStrictEqual } from 'node:util';
import request from 'supertest';
import type { Infrastructure } from '@promptpix/runtime';
import { CSRF_HEADER, type DashboardAnswer, dashboardAnswers, SESSION_COOKIE } from '@promptpix/contracts';

const routes = dashboardAnswers.map((answer) => ({ answer, pattern: new RegExp(`^${answer.path.replace(/:[A-Za-z]+/g, '[^/]+')}$`) }));

function dashboardAnswerFor(method: string, path: string, status: number): DashboardAnswer | undefined {
  const bare = path.split('?')[0];
  return routes.find(({ answer, pattern }) => answer.method === method && pattern.test(bare) && (answer.status ?? status) === status)?.answer;
}

/**
 * A successful JSON answer of the signed-in API, checked against its schema in @promptpix/contracts
 * (`dashboardAnswers`): it must parse and carry no field the schema does not state. Returns the problem, or null.
 */
export function dashboardAnswerProblem(method: string, path: string, status: number, contentType: string | undefined, body: unknown): string | null {
  if (status < 200 || status >= 300 || !contentType?.startsWith('application/json')) return null;
  const answer = dashboardAnswerFor(method, path, status);
  if (!answer) return `${method} ${path} answered ${status} JSON, but dashboardAnswers lists no schema for it`;
  const parsed = answer.schema.safeParse(body);
  if (!parsed.success) return `${method} ${path}: the answer does not match its schema: ${parsed.error.message}`;
  if (!isDeepStrictEqual(JSON.parse(JSON.stringify(parsed.data)), body)) return `${method} ${path}: the answer carries fields its schema does not state`;
  return null;
}

export interface DashboardTestSession {
  /** The Cookie header value. */
  cookie: string;
  csrfToken: string;
  get(path: string): request.Test;
  post(path: string, body?: unknown): request.Test;
  patch(path: string, body?: unknown): request.Test;
  delete(path: string): request.Test;
  /** A multipart POST with one file under `field`, as the playground sends an image. */
  upload(path: string, bytes: Buffer, field?: string, filename?: string): request.Test;
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
  // Every answer is replayed through its schema: a handler that drifts from the contract fails the test that saw it.
  const checked = (method: string, path: string, test: request.Test) =>
    test.expect((res) => {
      const problem = dashboardAnswerProblem(method, path, res.status, res.headers['content-type'], res.body);
      if (problem) throw new Error(problem);
    });
  const withHeaders = (test: request.Test) => test.set('Cookie', cookie).set(CSRF_HEADER, session.csrfToken);
  const agent = request(service.baseUrl);
  return {
    cookie,
    csrfToken: session.csrfToken,
    get: (path) => checked('GET', path, withHeaders(agent.get(path))),
    post: (path, body) => checked('POST', path, withHeaders(agent.post(path)).send(body as object)),
    patch: (path, body) => checked('PATCH', path, withHeaders(agent.patch(path)).send(body as object)),
    delete: (path) => withHeaders(agent.delete(path)),
    upload: (path, bytes, field = 'image', filename = 'image.png') => checked('POST', path, withHeaders(agent.post(path)).attach(field, bytes, filename)),
  };
}
