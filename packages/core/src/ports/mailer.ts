/** One e-mail to one recipient. `text` is required; `html` is an optional alternative part. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

/**
 * Sends e-mail (dashboard sign-in links). Adapters: SMTP (SMTP_URL) or, without it, an outbox
 * folder of .eml files (packages/runtime/src/mail). Rejects when the message could not be handed on.
 */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
}
