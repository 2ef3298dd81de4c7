/**
 * Reads the outbox mailer's .eml files (DATA_DIR/outbox, when no SMTP_URL is set): for tests,
 * including the dashboard's browser end-to-end test, to find the sign-in link a user was sent.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';

export interface OutboxMail {
  /** The .eml file's path. */
  file: string;
  to: string[];
  from: string[];
  subject: string;
  text: string;
  html: string | null;
  date: Date | null;
}

const addresses = (field: unknown): string[] => {
  const objects = (Array.isArray(field) ? field : field ? [field] : []) as Array<{ value: Array<{ address?: string }> }>;
  return objects.flatMap((o) => o.value.map((v) => v.address ?? '').filter(Boolean));
};

/** Every mail in the outbox, oldest first (file names sort by time); none when the folder doesn't exist. */
export async function readOutbox(dir: string): Promise<OutboxMail[]> {
  const names = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [] as string[];
    throw error;
  });
  const files = names.filter((n) => n.endsWith('.eml')).sort();
  return Promise.all(
    files.map(async (name) => {
      const file = join(dir, name);
      const parsed = await simpleParser(await readFile(file));
      return {
        file,
        to: addresses(parsed.to),
        from: addresses(parsed.from),
        subject: parsed.subject ?? '',
        text: parsed.text ?? '',
        html: typeof parsed.html === 'string' ? parsed.html : null,
        date: parsed.date ?? null,
      };
    }),
  );
}

const LINK = /https?:\/\/\S+\/dashboard\/sign-in#token=[A-Za-z0-9_%.~-]+/;

/** The sign-in link in a mail's text, or null. */
export const signInLinkOf = (mail: Pick<OutboxMail, 'text'>): string | null => mail.text.match(LINK)?.[0] ?? null;

/** The token of a sign-in link (what the browser app POSTs to /dashboard/api/sign-in/confirm). */
export const tokenOfLink = (link: string): string => decodeURIComponent(new URL(link).hash.replace(/^#token=/, ''));

/** The newest sign-in link sent to `to` (case-insensitive), or null. */
export async function latestSignInLink(dir: string, to: string): Promise<string | null> {
  const mails = await readOutbox(dir);
  for (const mail of mails.reverse()) {
    if (!mail.to.some((a) => a.toLowerCase() === to.toLowerCase())) continue;
    const link = signInLinkOf(mail);
    if (link) return link;
  }
  return null;
}

/**
 * Waits for a sign-in link to `to` that is not one of `except` (e.g. the links seen before the
 * request): sign-in mail is sent after the 202 answer, so it lands a moment later.
 */
export async function waitForSignInLink(dir: string, to: string, options: { except?: Array<string | null>; timeoutMs?: number } = {}): Promise<string> {
  const deadline = Date.now() + (options.timeoutMs ?? 5000);
  for (;;) {
    const link = await latestSignInLink(dir, to);
    if (link && !options.except?.includes(link)) return link;
    if (Date.now() > deadline) throw new Error(`no new sign-in link for ${to} in ${dir}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
