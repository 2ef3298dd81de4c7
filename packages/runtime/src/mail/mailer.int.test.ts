import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import winston from 'winston';
import { SMTPServer } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';
import { signInEmail, signInUrl } from '@promptpix/core';
import { createLogger } from '../observability/logger';
import { createMailer, createOutboxMailer, createSmtpMailer } from './mailer';

const TOKEN = 'tok_secret-0123456789abcdefABCDEF_xyz';
const LINK = signInUrl('https://pix.example.com', TOKEN);
const message = () => signInEmail({ to: 'ada@example.com', handle: 'ada', url: LINK, expiresInMinutes: 15 });

function captureLogger() {
  const lines: string[] = [];
  const logger = createLogger({
    level: 'debug',
    format: 'json',
    service: 'mail-test',
    transports: [
      new winston.transports.Stream({
        stream: new Writable({
          write: (chunk, _e, done) => {
            lines.push(String(chunk));
            done();
          },
        }),
      }),
    ],
  });
  return { logger, lines };
}

const addressesOf = (field: ParsedMail['to']) => (Array.isArray(field) ? field : field ? [field] : []).flatMap((a) => a.value.map((v) => v.address));

describe('SMTP mailer against a real SMTP server', () => {
  let server: SMTPServer;
  let port: number;
  const received: Array<{ from: string | undefined; to: string[]; user: string | undefined; raw: Buffer }> = [];

  beforeAll(async () => {
    server = new SMTPServer({
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      logger: false,
      onAuth(auth, _session, callback) {
        if (auth.username === 'mailer' && auth.password === 'p@ss word') return callback(null, { user: auth.username });
        callback(new Error('Invalid username or password'));
      },
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : undefined,
            to: session.envelope.rcptTo.map((r) => r.address),
            user: session.user as string | undefined,
            raw: Buffer.concat(chunks),
          });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('delivers the message (authenticated, envelope and headers right, the link intact in the body) and logs no secret', async () => {
    const { logger, lines } = captureLogger();
    const smtpUrl = `smtp://mailer:${encodeURIComponent('p@ss word')}@127.0.0.1:${port}`;
    const mailer = createMailer({ smtpUrl, from: 'PromptPix <noreply@pix.example.com>', outboxDir: '/nonexistent' }, logger);
    await mailer.send(message());

    expect(received).toHaveLength(1);
    const [got] = received;
    expect(got.user).toBe('mailer');
    expect(got.from).toBe('noreply@pix.example.com');
    expect(got.to).toEqual(['ada@example.com']);
    const parsed = await simpleParser(got.raw);
    expect(addressesOf(parsed.to)).toEqual(['ada@example.com']);
    expect(parsed.subject).toBe('Your PromptPix sign-in link');
    expect(parsed.text).toContain(LINK);
    expect(parsed.text).toContain('expires in 15 minutes');
    expect(parsed.html).toContain(LINK);

    const log = lines.join('');
    expect(log).toContain('mail sent');
    expect(log).not.toContain(TOKEN);
    expect(log).not.toContain('p@ss');
  });

  it('rejects when the server refuses the credentials', async () => {
    const { logger } = captureLogger();
    const mailer = createSmtpMailer({ smtpUrl: `smtp://mailer:wrong@127.0.0.1:${port}`, from: 'noreply@pix.example.com' }, logger);
    await expect(mailer.send(message())).rejects.toThrow();
  });

  it('rejects when nothing listens there', async () => {
    const { logger } = captureLogger();
    const closed = new SMTPServer({ disabledCommands: ['STARTTLS'], authOptional: true, logger: false });
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadPort = (closed.server.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await expect(createSmtpMailer({ smtpUrl: `smtp://127.0.0.1:${deadPort}`, from: 'noreply@pix.example.com' }, logger).send(message())).rejects.toThrow();
  });
});

describe('outbox mailer', () => {
  let dir: string;
  beforeEach(() => {
    dir = join(mkdtempSync(join(tmpdir(), 'promptpix-outbox-')), 'outbox');
  });
  afterEach(() => rmSync(join(dir, '..'), { recursive: true, force: true }));

  it('writes each message as a parseable .eml file, names sorting by time, and logs to, subject and path but never the link', async () => {
    const { logger, lines } = captureLogger();
    const times = [new Date('2026-11-23T12:00:00.000Z'), new Date('2026-11-23T12:00:00.001Z'), new Date('2026-11-23T13:00:00.000Z')];
    const mailer = createOutboxMailer({ outboxDir: dir, from: 'PromptPix <noreply@pix.example.com>', now: () => times.shift()! }, logger);
    await mailer.send(message());
    await mailer.send({ to: 'bob@example.com', subject: 'Second', text: 'two' });
    await mailer.send({ to: 'cy@example.com', subject: 'Third', text: 'three' });

    const files = readdirSync(dir).filter((f) => f.endsWith('.eml'));
    expect(files).toHaveLength(3);
    expect(files.every((f) => /^2026-11-23T\d\d-\d\d-\d\d-\d{3}Z-[0-9a-f]{8}\.eml$/.test(f))).toBe(true);
    const sorted = [...files].sort();
    const parsed = await Promise.all(sorted.map((f) => simpleParser(readFileSync(join(dir, f)))));
    expect(parsed.map((p) => p.subject)).toEqual(['Your PromptPix sign-in link', 'Second', 'Third']);
    const [first] = parsed;
    expect(addressesOf(first.to)).toEqual(['ada@example.com']);
    expect(first.from?.value[0]).toEqual({ name: 'PromptPix', address: 'noreply@pix.example.com' });
    expect(first.messageId).toBeTruthy();
    expect(first.date).toBeInstanceOf(Date);
    expect(first.text).toContain(LINK);
    expect(first.html).toContain(LINK);
    // Beside each .eml, the message as plain text: the link whole on one line, as read with `cat`.
    const readable = readFileSync(join(dir, sorted[0].replace(/\.eml$/, '.txt')), 'utf8');
    expect(readable.split('\n')).toContainEqual(expect.stringContaining(LINK));
    expect(readable).toMatch(/^To: ada@example.com\nSubject: Your PromptPix sign-in link\n/);

    const entries = lines.map((l) => JSON.parse(l));
    const written = entries.filter((e) => e.message === 'mail written to outbox');
    expect(written).toHaveLength(3);
    expect(written[0]).toMatchObject({ to: 'ada@example.com', subject: 'Your PromptPix sign-in link', path: join(dir, sorted[0]) });
    expect(lines.join('')).not.toContain(TOKEN);
  });

  it('is what createMailer picks without an SMTP URL', async () => {
    const { logger } = captureLogger();
    await createMailer({ from: 'noreply@pix.example.com', outboxDir: dir }, logger).send(message());
    expect(readdirSync(dir).filter((f) => f.endsWith('.eml'))).toHaveLength(1);
  });
});
