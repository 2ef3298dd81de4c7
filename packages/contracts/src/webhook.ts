import { z } from 'zod';

/** Hosts a plain-http webhook may name: a receiver on the developer's own machine. */
const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

function webhookUrlProblem(value: string): string | null {
  if (value.includes('\u0000')) return 'Must not contain NUL characters';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'Expected a URL';
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOCAL_HOSTS.has(url.hostname))) {
    return 'Must be an https URL (http only for localhost)';
  }
  if (url.username || url.password) return 'Must not contain a user name or password';
  return null;
}

/** Extension: where to POST the job when it completes or fails (README, "Webhooks"). */
export const webhookUrlSchema = z
  .string({ error: 'Expected a string' })
  .max(2000, { error: 'Must be at most 2000 characters', abort: true })
  .superRefine((value, ctx) => {
    const problem = webhookUrlProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .meta({
    format: 'uri',
    maxLength: 2000,
    description:
      "Extension: an https URL (http only for localhost) that receives the job as JSON when it completes or fails, signed per Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature) with the account's webhook secret; retried for up to a day.",
    example: 'https://example.com/hooks/promptpix',
  });
