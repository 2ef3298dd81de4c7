import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { SMTPServer } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';
import { startTestService, type TestService } from '@promptpix/server/testing';
import { signInLinkOf, tokenOfLink } from './outbox-reader';

/** The production shape (PostgreSQL, Redis) sending through a real SMTP server, with Secure cookies. */
describe('dashboard sign-in mail over SMTP (production)', () => {
  let smtp: SMTPServer;
  let service: TestService;
  const inbox: ParsedMail[] = [];

  beforeAll(async () => {
    smtp = new SMTPServer({
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      logger: false,
      onAuth: (auth, _session, done) =>
        auth.username === 'relay' && auth.password === 'secret-pass' ? done(null, { user: 'relay' }) : done(new Error('bad credentials')),
      onData(stream, _session, done) {
        simpleParser(stream).then((mail) => {
          inbox.push(mail);
          done();
        }, done);
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    const port = (smtp.server.address() as AddressInfo).port;
    service = await startTestService(
      'production',
      { SMTP_URL: `smtp://relay:secret-pass@127.0.0.1:${port}`, MAIL_FROM: 'PromptPix <pix@example.com>', DASHBOARD_SECURE_COOKIE: 'on' },
      { worker: false },
    );
  });
  afterAll(async () => {
    await service.stop();
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
  });

  const to = (mail: ParsedMail) => (Array.isArray(mail.to) ? mail.to : mail.to ? [mail.to] : []).flatMap((a) => a.value.map((v) => v.address));

  it('approval mails the link through SMTP; it signs in with a Secure cookie', async () => {
    expect((await service.admin('POST', '/admin/api/v1/accounts', { handle: 'smtp-user', email: 'smtp-user@example.com' })).status).toBe(201);
    const approved = await service.admin('PATCH', '/admin/api/v1/accounts/smtp-user', { status: 'approved' });
    expect(approved.body.mail).toBe('sent');

    const mail = inbox.find((m) => to(m).includes('smtp-user@example.com'))!;
    expect(mail.subject).toBe('Your PromptPix account is approved');
    expect(mail.from?.value[0].address).toBe('pix@example.com');
    const link = signInLinkOf({ text: mail.text ?? '' })!;
    expect(link.startsWith(`${service.baseUrl}/dashboard/sign-in#token=`)).toBe(true);

    const res = await request(service.baseUrl)
      .post('/dashboard/api/sign-in/confirm')
      .send({ token: tokenOfLink(link) });
    expect(res.status).toBe(200);
    const cookie = ([] as string[]).concat(res.headers['set-cookie']).find((c) => c.startsWith('pp_session='))!;
    expect(cookie).toMatch(/; Secure/);
    expect(cookie).toMatch(/; HttpOnly/);
    expect(service.logs.join('')).not.toContain(tokenOfLink(link));
    expect(service.logs.join('')).not.toContain('secret-pass');
  });

  it('a sign-in request mails a fresh link', async () => {
    const asked = await request(service.baseUrl).post('/dashboard/api/sign-in').send({ email: 'SMTP-user@example.com' });
    expect(asked.status).toBe(202);
    const deadline = Date.now() + 5000;
    while (!inbox.some((m) => m.subject === 'Your PromptPix sign-in link') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    const mail = inbox.find((m) => m.subject === 'Your PromptPix sign-in link')!;
    expect(mail.text).toContain('expires in 15 minutes');
    const res = await request(service.baseUrl)
      .post('/dashboard/api/sign-in/confirm')
      .send({ token: tokenOfLink(signInLinkOf({ text: mail.text ?? '' })!) });
    expect(res.body.account).toMatchObject({ handle: 'smtp-user', status: 'approved' });
  });

  it('of concurrent confirms of one link on PostgreSQL, exactly one signs in', async () => {
    const account = (await service.infra.accounts.findByHandle('smtp-user'))!;
    const { token } = await service.infra.signInLinks.create(account.id, new Date(Date.now() + 60_000));
    const results = await Promise.all(Array.from({ length: 6 }, () => request(service.baseUrl).post('/dashboard/api/sign-in/confirm').send({ token })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 410, 410, 410, 410, 410]);
  });

  it("a mail failure does not fail the operator's call: it answers mail: failed and logs a warning", async () => {
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
    const created = await service.admin('POST', '/admin/api/v1/accounts', { handle: 'smtp-down', email: 'smtp-down@example.com', status: 'approved' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ handle: 'smtp-down', status: 'approved', mail: 'failed' });
    expect(service.logs.some((l) => l.includes('approval mail failed') && l.includes('smtp-down'))).toBe(true);
  });
});
