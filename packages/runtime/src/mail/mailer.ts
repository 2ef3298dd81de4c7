/**
 * The Mailer port's adapters: SMTP through nodemailer when SMTP_URL is set, else an outbox folder
 * (DATA_DIR/outbox) of RFC 822 .eml files, one per message, for development, tests and operators
 * without a mail relay. Neither logs a message's body: sign-in links are secrets.
 *
 * nodemailer is loaded at the first message, not at start: about 12 MB of resident memory that a
 * process which sends no mail (most gateways, most of the time) does not need.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Mailer, MailMessage } from '@promptpix/core';
import type { Config } from '../config/config';
import type { Logger } from '../observability/logger';

export type MailConfig = Config['mail'];

type Nodemailer = typeof import('nodemailer');
const loadNodemailer = (): Nodemailer => require('nodemailer') as Nodemailer;

/** `make()` at the first call, then the same value. */
const once = <T>(make: () => T): (() => T) => {
  let made: T | undefined;
  return () => (made ??= make());
};

/** Sends through an SMTP relay, e.g. `smtp://user:pass@host:587` (STARTTLS when offered) or `smtps://…:465`. */
export function createSmtpMailer(options: { smtpUrl: string; from: string }, logger: Logger): Mailer {
  // Bounded waits: an operator's approve call waits for its e-mail (nodemailer's socket default is 10 minutes).
  const transport = once(() =>
    loadNodemailer().createTransport({ url: options.smtpUrl, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 }),
  );
  return {
    async send(message: MailMessage) {
      const info = await transport().sendMail({ from: options.from, ...message });
      logger.info('mail sent', { to: message.to, subject: message.subject, messageId: info.messageId });
    },
  };
}

/** `2026-11-23T12-00-00-000Z-1a2b3c4d.eml`: sorts by time; colons left out for every file system. */
const outboxFileName = (now: Date) => `${now.toISOString().replace(/:/g, '-').replace('.', '-')}-${randomBytes(4).toString('hex')}.eml`;

/**
 * Writes each message as an .eml file under `dir` instead of sending it, and beside it the same
 * message as plain text (`.txt`): an .eml's body is quoted-printable, so a long link read with `cat`
 * there is broken across lines; in the .txt it is whole.
 */
export function createOutboxMailer(options: { outboxDir: string; from: string; now?: () => Date }, logger: Logger): Mailer {
  const composer = once(() => loadNodemailer().createTransport({ streamTransport: true, buffer: true, newline: 'unix' }));
  const now = options.now ?? (() => new Date());
  return {
    async send(message: MailMessage) {
      const info = await composer().sendMail({ from: options.from, ...message });
      await mkdir(options.outboxDir, { recursive: true });
      const path = join(options.outboxDir, outboxFileName(now()));
      // Written whole under a temporary name, then renamed: a reader never sees half a message.
      await writeFile(`${path}.tmp`, info.message);
      await rename(`${path}.tmp`, path);
      const readable = path.replace(/\.eml$/, '.txt');
      await writeFile(`${readable}.tmp`, `To: ${message.to}\nSubject: ${message.subject}\n\n${message.text}\n`);
      await rename(`${readable}.tmp`, readable);
      logger.info('mail written to outbox', { to: message.to, subject: message.subject, path });
    },
  };
}

/** SMTP when `smtpUrl` is set, else the outbox. */
export function createMailer(config: MailConfig, logger: Logger): Mailer {
  if (config.smtpUrl) return createSmtpMailer({ smtpUrl: config.smtpUrl, from: config.from }, logger);
  logger.debug('no SMTP_URL: mail goes to the outbox folder', { outboxDir: config.outboxDir });
  return createOutboxMailer({ outboxDir: config.outboxDir, from: config.from }, logger);
}
