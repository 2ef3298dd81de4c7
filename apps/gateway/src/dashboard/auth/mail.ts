import { APPROVAL_LINK_DAYS, approvalEmail, signInEmail, signInUrl, type MailMessage } from '@promptpix/core';
import type { GatewayDeps } from '../../deps';

const MINUTE_MS = 60_000;
/** The approval e-mail's link lives longer than a requested one: it may be read days later. */
export const APPROVAL_LINK_MINUTES = APPROVAL_LINK_DAYS * 1440;

export type SignInMailDeps = Pick<GatewayDeps, 'signInLinks' | 'mailer' | 'publicBaseUrl' | 'dashboard' | 'now'>;

interface MailAccount {
  id: string;
  handle: string;
  email: string;
}

/** A fresh one-time sign-in link for the account, good for `minutes`: its URL and expiry. */
export async function issueSignInLink(
  deps: Omit<SignInMailDeps, 'mailer'>,
  account: Pick<MailAccount, 'id'>,
  minutes: number,
): Promise<{ url: string; expiresAt: Date }> {
  const now = deps.now();
  const link = await deps.signInLinks.create(account.id, new Date(now.getTime() + minutes * MINUTE_MS), now);
  return { url: signInUrl(deps.publicBaseUrl, link.token), expiresAt: link.expiresAt };
}

async function sendWithLink(deps: SignInMailDeps, account: MailAccount, minutes: number, compose: typeof signInEmail): Promise<void> {
  const { url } = await issueSignInLink(deps, account, minutes);
  const mail: MailMessage = compose({ to: account.email, handle: account.handle, url, expiresInMinutes: minutes });
  await deps.mailer.send(mail);
}

/** "Your PromptPix account is approved", with a sign-in link good for APPROVAL_LINK_DAYS. */
export const sendApprovalEmail = (deps: SignInMailDeps, account: MailAccount) => sendWithLink(deps, account, APPROVAL_LINK_MINUTES, approvalEmail);

/** The sign-in link asked for on the sign-in page, good for DASHBOARD_LINK_MINUTES. */
export const sendSignInEmail = (deps: SignInMailDeps, account: MailAccount) => sendWithLink(deps, account, deps.dashboard.linkMinutes, signInEmail);
