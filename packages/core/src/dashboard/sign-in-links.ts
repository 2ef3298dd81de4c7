/**
 * Invite-only dashboard sign-in by e-mailed one-time link: the pure rules (is a link usable, its
 * URL) and the two e-mails. The repository (packages/db) stores only the token's hash.
 */
import type { MailMessage } from '../ports/mailer';

/** How long the link in the approval e-mail lives: the user may read that mail days later. */
export const APPROVAL_LINK_DAYS = 7;

export type SignInLinkState = 'ok' | 'expired' | 'used';

export interface SignInLinkTimes {
  expiresAt: Date;
  usedAt: Date | null;
}

/** A used link is `used` even once expired (the more telling answer); else expired at `expiresAt`. */
export function signInLinkState(link: SignInLinkTimes, now: Date): SignInLinkState {
  if (link.usedAt) return 'used';
  if (link.expiresAt.getTime() <= now.getTime()) return 'expired';
  return 'ok';
}

/**
 * The link the e-mail carries. The token rides in the URL fragment, which browsers never send:
 * it stays out of server and proxy logs and Referer headers; the dashboard app reads it and POSTs it.
 */
export function signInUrl(publicBaseUrl: string, token: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}/dashboard/sign-in#token=${encodeURIComponent(token)}`;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const lifetime = (minutes: number): string => {
  if (minutes % 1440 === 0) return `${minutes / 1440} day${minutes === 1440 ? '' : 's'}`;
  if (minutes % 60 === 0) return `${minutes / 60} hour${minutes === 60 ? '' : 's'}`;
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
};

const htmlOf = (paragraphs: string[], url: string, button: string) =>
  [
    '<!doctype html><html><body style="font-family:sans-serif;line-height:1.5">',
    ...paragraphs.map((p) => (p === '{link}' ? `<p><a href="${escapeHtml(url)}">${escapeHtml(button)}</a></p>` : `<p>${escapeHtml(p)}</p>`)),
    '</body></html>',
  ].join('\n');

export interface SignInMailInput {
  to: string;
  handle: string;
  url: string;
  /** The link's lifetime in minutes. */
  expiresInMinutes: number;
}

/** Sent when the operator approves an account (or creates it approved). */
export function approvalEmail(input: SignInMailInput): MailMessage {
  const expiry = `This link expires in ${lifetime(input.expiresInMinutes)} and works once. Later, sign in from the dashboard's sign-in page with this address to get a fresh link.`;
  const paragraphs = [
    `Hello ${input.handle},`,
    'Your PromptPix account is approved. Sign in to your dashboard with this link:',
    '{link}',
    'In the dashboard you will find your API keys (create and revoke them), the images you generated with their permalinks, your characters and styles, your usage and quota, and the snippet to embed images on your site.',
    expiry,
  ];
  return {
    to: input.to,
    subject: 'Your PromptPix account is approved',
    text: `${paragraphs.map((p) => (p === '{link}' ? input.url : p)).join('\n\n')}\n`,
    html: htmlOf(paragraphs, input.url, 'Sign in to PromptPix'),
  };
}

/** Sent on request from the sign-in page. */
export function signInEmail(input: SignInMailInput): MailMessage {
  const paragraphs = [
    `Hello ${input.handle},`,
    'Use this link to sign in to your PromptPix dashboard:',
    '{link}',
    `The link expires in ${lifetime(input.expiresInMinutes)} and can be used once.`,
    "If you didn't ask to sign in, ignore this e-mail: nobody can sign in without the link.",
  ];
  return {
    to: input.to,
    subject: 'Your PromptPix sign-in link',
    text: `${paragraphs.map((p) => (p === '{link}' ? input.url : p)).join('\n\n')}\n`,
    html: htmlOf(paragraphs, input.url, 'Sign in to PromptPix'),
  };
}
