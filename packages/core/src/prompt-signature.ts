import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { normalizePrompt } from './prompts';

/**
 * Signed prompts (docs/api/embed.md, "Publishable keys: budgets and signed prompts"): the site's
 * server signs what an element may generate with its key's signing secret, so a key in signed
 * mode starts generations only for prompts the site chose. The SDK's `signPrompt` builds the
 * same message (packages/sdk/src/sign-prompt.ts); a test holds the two together.
 */

export const SIGNING_SECRET_PREFIX = 'pks_';

/** A new per-key signing secret: 32 random bytes, base64url. */
export const newSigningSecret = (): string => SIGNING_SECRET_PREFIX + randomBytes(32).toString('base64url');

export interface SignedFields {
  prompt: string;
  style?: string;
  width?: number;
  height?: number;
  character?: string;
  age?: string;
  seed?: number;
  negativePrompt?: string;
}

/**
 * One line per field, absent ones empty, prompts normalised as the cache key is (so markup
 * whitespace does not matter). Null when a field holds a line break: it could shift the lines.
 */
export function promptSignatureMessage(f: SignedFields): string | null {
  const lines = [
    'promptpix-sig-v1',
    normalizePrompt(f.prompt),
    f.style ?? '',
    `${f.width ?? 1024}x${f.height ?? 1024}`,
    f.character ?? '',
    f.age ?? '',
    f.seed === undefined ? '' : String(f.seed),
    f.negativePrompt === undefined ? '' : normalizePrompt(f.negativePrompt),
  ];
  return lines.some((line) => line.includes('\n')) ? null : lines.join('\n');
}

/** base64url HMAC-SHA256 of the message, keyed with the secret's UTF-8 bytes. */
export function signPromptFields(secret: string, fields: SignedFields): string | null {
  const message = promptSignatureMessage(fields);
  return message === null ? null : createHmac('sha256', secret).update(message).digest('base64url');
}

export function promptSignatureValid(secret: string, fields: SignedFields, signature: string): boolean {
  const expected = signPromptFields(secret, fields);
  if (expected === null) return false;
  const given = Buffer.from(signature);
  const want = Buffer.from(expected);
  return given.length === want.length && timingSafeEqual(given, want);
}
