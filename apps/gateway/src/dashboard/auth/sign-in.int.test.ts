import request from 'supertest';
import { startTestService, type TestService } from '@promptpix/server/testing';
import { SESSION_COOKIE } from '@promptpix/contracts';
import { dashboardSessionFor } from '../testing';
import { latestSignInLink, readOutbox, tokenOfLink, waitForSignInLink } from './outbox-reader';
import { SIGN_IN_PER_ADDRESS, SIGN_IN_PER_IP } from './routes';

describe('dashboard sign-in by e-mailed link (embedded)', () => {
  let service: TestService;
  let outbox: string;
  let counter = 0;
  /** Every token this file handled: none may ever show up in a log line. */
  const seenTokens: string[] = [];

  beforeAll(async () => {
    service = await startTestService('embedded');
    outbox = service.config.mail.outboxDir;
  });
  afterAll(() => service.stop());

  const api = () => request(service.baseUrl);
  const newAccount = async (status: string) => {
    const handle = `signin-${++counter}`;
    const email = `${handle}@Example.com`;
    const created = await service.admin('POST', '/admin/api/v1/accounts', { handle, email, status });
    expect(created.status).toBe(201);
    const account = (await service.infra.accounts.findByHandle(handle))!;
    return { handle, email, id: account.id, created: created.body };
  };
  const confirm = (token: string, cookie?: string) => {
    seenTokens.push(token);
    const test = api().post('/dashboard/api/sign-in/confirm');
    if (cookie) test.set('Cookie', cookie);
    return test.send({ token });
  };
  const freshLink = async (accountId: string, inMs = 600_000) => {
    const link = await service.infra.signInLinks.create(accountId, new Date(Date.now() + inMs));
    seenTokens.push(link.token);
    return link.token;
  };
  const sessionCookieOf = (res: request.Response): string => {
    const header = ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((c) => c.startsWith(`${SESSION_COOKIE}=`));
    if (!header) throw new Error('no session cookie set');
    return header;
  };
  const cookiePair = (setCookie: string) => setCookie.split(';')[0];

  it('approving a pending account e-mails an approval with a sign-in link (to the outbox), and the link signs in once', async () => {
    const { handle, email, created } = await newAccount('pending');
    expect(created.mail).toBeUndefined();
    expect(await latestSignInLink(outbox, email)).toBeNull();

    const approved = await service.admin('PATCH', `/admin/api/v1/accounts/${handle}`, { status: 'approved' });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ handle, status: 'approved', mail: 'sent' });
    const mail = (await readOutbox(outbox)).filter((m) => m.to.includes(email.toLowerCase()) || m.to.includes(email)).pop()!;
    expect(mail.subject).toBe('Your PromptPix account is approved');
    expect(mail.text).toContain('Your PromptPix account is approved');
    expect(mail.text).toContain('expires in 7 days');
    const link = (await latestSignInLink(outbox, email))!;
    expect(link).toMatch(new RegExp(`^${service.baseUrl}/dashboard/sign-in#token=`));
    const token = tokenOfLink(link);
    expect(service.logs.join('')).toContain('mail written to outbox');

    // A later PATCH of an approved account sends nothing more.
    const again = await service.admin('PATCH', `/admin/api/v1/accounts/${handle}`, { plan: 'pro' });
    expect(again.body.mail).toBeUndefined();

    const res = await confirm(token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ account: { handle, email, plan: 'pro', status: 'approved' }, csrfToken: expect.any(String) });
    const setCookie = sessionCookieOf(res);
    expect(setCookie).toMatch(/; HttpOnly/);
    expect(setCookie).toMatch(/; SameSite=Lax/);
    expect(setCookie).toMatch(/; Path=\/dashboard(;|$)/);
    expect(setCookie).not.toMatch(/; Secure/);

    const session = await api().get('/dashboard/api/session').set('Cookie', cookiePair(setCookie));
    expect(session.status).toBe(200);
    expect(session.body).toEqual(res.body);

    const reused = await confirm(token);
    expect(reused.status).toBe(410);
    expect(reused.body).toEqual({ error: 'This sign-in link has already been used' });
  });

  it('creating an account already approved e-mails the approval too', async () => {
    const { email, created } = await newAccount('approved');
    expect(created.mail).toBe('sent');
    const link = await latestSignInLink(outbox, email);
    expect(link).not.toBeNull();
    const res = await confirm(tokenOfLink(link!));
    expect(res.status).toBe(200);
  });

  it('an expired link is 410, an unknown one 400, a missing token a 400 naming the field', async () => {
    const { id } = await newAccount('approved');
    const expired = await freshLink(id, -1000);
    expect((await confirm(expired)).body).toEqual({ error: 'This sign-in link has expired' });
    expect((await confirm(expired)).status).toBe(410);

    const unknown = await confirm('no-such-token-0123456789');
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({ error: 'Invalid sign-in link' });

    const missing = await api().post('/dashboard/api/sign-in/confirm').send({});
    expect(missing.status).toBe(400);
    expect(missing.body.details.fieldErrors.token).toBeDefined();
  });

  it("keeps the tables small: a new link drops the account's links expired over a day ago, a new session its expired sessions", async () => {
    const { id } = await newAccount('approved');
    const DAY = 86_400_000;
    const stale = await freshLink(id, -2 * DAY);
    const recent = await freshLink(id, -1000);
    await freshLink(id);
    expect((await confirm(stale)).status).toBe(400);
    // Expired within the day: still says why.
    expect((await confirm(recent)).body).toEqual({ error: 'This sign-in link has expired' });
    const links = await service.infra.db.prisma.signInLink.findMany({ where: { accountId: id } });
    // The approval mail's link, the recent one and the fresh one.
    expect(links).toHaveLength(3);
    expect(links.every((l) => l.expiresAt.getTime() > Date.now() - DAY)).toBe(true);

    await service.infra.dashboardSessions.create(id, new Date(Date.now() - 1000));
    const live = await service.infra.dashboardSessions.create(id, new Date(Date.now() + DAY));
    expect((await confirm(await freshLink(id))).status).toBe(200);
    const sessions = await service.infra.db.prisma.dashboardSession.findMany({ where: { accountId: id } });
    expect(sessions).toHaveLength(2);
    expect(sessions.map((s) => s.id)).toContain(live.id);
    expect(sessions.every((s) => s.expiresAt.getTime() > Date.now())).toBe(true);
  });

  it('the operator can issue a link to hand over (mail down): it works once; suspended accounts get none', async () => {
    const { handle } = await newAccount('approved');
    const issued = await service.admin('POST', `/admin/api/v1/accounts/${handle}/sign-in-link`);
    expect(issued.status).toBe(201);
    expect(issued.body).toEqual({ url: expect.stringMatching(new RegExp(`^${service.baseUrl}/dashboard/sign-in#token=`)), expiresAt: expect.any(String) });
    expect(Date.parse(issued.body.expiresAt) - Date.now()).toBeGreaterThan(6.9 * 86_400_000);
    const token = tokenOfLink(issued.body.url);
    expect((await confirm(token)).status).toBe(200);
    expect((await confirm(token)).status).toBe(410);

    await service.admin('PATCH', `/admin/api/v1/accounts/${handle}`, { status: 'suspended' });
    const refused = await service.admin('POST', `/admin/api/v1/accounts/${handle}/sign-in-link`);
    expect([refused.status, refused.body]).toEqual([409, { error: 'The account is suspended: it cannot sign in' }]);
    expect((await service.admin('POST', '/admin/api/v1/accounts/nobody-here/sign-in-link')).status).toBe(404);
  });

  it('of two concurrent confirms of one link, exactly one signs in', async () => {
    const { id } = await newAccount('approved');
    const token = await freshLink(id);
    const results = await Promise.all([confirm(token), confirm(token), confirm(token)]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 410, 410]);
  });

  it('a suspended or banned account cannot sign in (403, the public API messages)', async () => {
    for (const [status, message] of [
      ['suspended', 'Account suspended'],
      ['banned', 'Account banned'],
    ] as const) {
      const { handle, id } = await newAccount('approved');
      const token = await freshLink(id);
      await service.admin('PATCH', `/admin/api/v1/accounts/${handle}`, { status });
      const res = await confirm(token);
      expect([status, res.status, res.body]).toEqual([status, 403, { error: message }]);
      expect(res.headers['set-cookie']).toBeUndefined();
    }
  });

  it("suspending an account ends its sessions: the browser's cookie answers 401 afterwards", async () => {
    const { handle, id } = await newAccount('approved');
    const res = await confirm(await freshLink(id));
    const cookie = cookiePair(sessionCookieOf(res));
    expect((await api().get('/dashboard/api/session').set('Cookie', cookie)).status).toBe(200);

    await service.admin('PATCH', `/admin/api/v1/accounts/${handle}`, { status: 'suspended' });
    expect(await service.infra.db.prisma.dashboardSession.count({ where: { accountId: id } })).toBe(0);
    const after = await api().get('/dashboard/api/session').set('Cookie', cookie);
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ error: 'Sign in required' });
  });

  it('a pending account signs in and sees that it is pending; the signed-in API refuses it until approval', async () => {
    const { handle, email } = await newAccount('pending');
    const before = await latestSignInLink(outbox, email);
    const asked = await api().post('/dashboard/api/sign-in').send({ email: email.toUpperCase() });
    expect(asked.status).toBe(202);
    const link = await waitForSignInLink(outbox, email, { except: [before] });
    const mail = (await readOutbox(outbox)).pop()!;
    expect(mail.subject).toBe('Your PromptPix sign-in link');
    expect(mail.text).toContain('expires in 15 minutes');

    const res = await confirm(tokenOfLink(link));
    expect(res.status).toBe(200);
    expect(res.body.account).toMatchObject({ handle, status: 'pending' });
    const cookie = cookiePair(sessionCookieOf(res));
    const session = await api().get('/dashboard/api/session').set('Cookie', cookie);
    expect(session.body.account.status).toBe('pending');
    const keys = await api().get('/dashboard/api/keys').set('Cookie', cookie);
    expect(keys.status).toBe(403);
    expect(keys.body.error).toBe('Account pending approval');
  });

  it('signing out needs the CSRF token from this origin; afterwards the cookie no longer works', async () => {
    const { handle } = await newAccount('approved');
    const browser = await dashboardSessionFor(service, handle);
    const signOut = () => api().post('/dashboard/api/sign-out').set('Cookie', browser.cookie);

    expect((await api().post('/dashboard/api/sign-out')).status).toBe(401);
    const noToken = await signOut();
    expect(noToken.status).toBe(403);
    expect(noToken.body).toEqual({ error: 'Invalid CSRF token' });
    const wrongToken = await signOut().set('X-CSRF-Token', 'not-the-token');
    expect(wrongToken.status).toBe(403);
    const crossSite = await signOut().set('X-CSRF-Token', browser.csrfToken).set('Origin', 'https://evil.example');
    expect(crossSite.status).toBe(403);
    expect(crossSite.body).toEqual({ error: 'Invalid CSRF token' });

    const ok = await signOut().set('X-CSRF-Token', browser.csrfToken).set('Origin', service.baseUrl);
    expect(ok.status).toBe(204);
    expect(sessionCookieOf(ok)).toMatch(/^pp_session=;.*Expires=Thu, 01 Jan 1970/);
    expect((await browser.get('/dashboard/api/session')).status).toBe(401);
  });

  it('confirm refuses a cross-site page (login CSRF)', async () => {
    const { id } = await newAccount('approved');
    const token = await freshLink(id);
    seenTokens.push(token);
    const res = await api().post('/dashboard/api/sign-in/confirm').set('Origin', 'https://evil.example').send({ token });
    expect(res.status).toBe(403);
    // The link was not spent.
    expect((await confirm(token)).status).toBe(200);
  });

  it('asking for a link: the same 202 for an unknown address, which gets no mail; suspended accounts get none; a bad address is a 400', async () => {
    const count = async () => (await readOutbox(outbox)).length;
    const before = await count();
    const unknown = await api().post('/dashboard/api/sign-in').send({ email: 'nobody-here@example.com' });
    expect(unknown.status).toBe(202);
    expect(unknown.body).toEqual({ message: 'If an account uses that address, a sign-in link is on its way.' });

    const { handle, email } = await newAccount('approved');
    await service.admin('PATCH', `/admin/api/v1/accounts/${handle}`, { status: 'suspended' });
    const afterSetup = await count();
    const suspended = await api().post('/dashboard/api/sign-in').send({ email });
    expect(suspended.body).toEqual(unknown.body);
    await new Promise((r) => setTimeout(r, 300));
    expect(await count()).toBe(afterSetup);
    expect(afterSetup).toBe(before + 1); // only the approval mail of the account created above

    const bad = await api().post('/dashboard/api/sign-in').send({ email: 'not an address' });
    expect(bad.status).toBe(400);
    expect(bad.body.details.fieldErrors.email).toBeDefined();
  });

  it(`is rate-limited per address (${SIGN_IN_PER_ADDRESS} in 15 minutes): then 429 in the public API's shape`, async () => {
    const email = 'flood-target@example.com';
    for (let i = 0; i < SIGN_IN_PER_ADDRESS; i++) expect((await api().post('/dashboard/api/sign-in').send({ email })).status).toBe(202);
    const refused = await api().post('/dashboard/api/sign-in').send({ email: email.toUpperCase() });
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: 'Rate limit exceeded', retryAfterMs: expect.any(Number) });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
  });

  it(`is rate-limited per client IP (${SIGN_IN_PER_IP} in 15 minutes) across addresses`, async () => {
    // Behind a trusted proxy, so each case has a client IP of its own that no other test used.
    const proxied = await startTestService('embedded', { TRUST_PROXY: 'loopback' }, { worker: false });
    try {
      const signIn = (ip: string, i: number) =>
        request(proxied.baseUrl)
          .post('/dashboard/api/sign-in')
          .set('X-Forwarded-For', ip)
          .send({ email: `probe-${i}@example.com` });
      for (let i = 0; i < SIGN_IN_PER_IP; i++) expect((await signIn('203.0.113.7', i)).status).toBe(202);
      const refused = await signIn('203.0.113.7', SIGN_IN_PER_IP);
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual({ error: 'Rate limit exceeded', retryAfterMs: expect.any(Number) });
      expect((await signIn('203.0.113.8', 0)).status).toBe(202);
    } finally {
      await proxied.stop();
    }
  });

  it('no log line holds a sign-in token', () => {
    const logs = service.logs.join('');
    expect(seenTokens.length).toBeGreaterThan(5);
    for (const token of seenTokens) expect(logs).not.toContain(token);
  });
});
