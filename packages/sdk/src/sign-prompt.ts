/**
 * Signed prompts (docs/api/embed.md, "Publishable keys: budgets and signed prompts"): a
 * publishable key in signed mode starts generations only for elements whose `data-service-sig`
 * (or `sig`) the site's server made with the key's signing secret. This is that server's helper;
 * the service checks the same message (packages/core/src/prompt-signature.ts).
 */

/** What an element may generate: its prompt, style and size (the API-only fields too, when used). */
export interface PromptToSign {
  prompt: string;
  style?: string;
  /** Default 1024, as the element's. */
  width?: number;
  height?: number;
  character?: string;
  age?: 'kids' | 'bigkids' | 'adults';
  seed?: number;
  negativePrompt?: string;
}

/** Trimmed, inner whitespace collapsed: the page's markup whitespace does not change the signature. */
const normalize = (text: string) => text.trim().replace(/\s+/g, ' ');

/**
 * The signature for `data-service-sig`: base64url HMAC-SHA256 over one line per field, keyed with
 * the secret's UTF-8 bytes. Uses Web Crypto (Node 20+, Deno, Bun, workers); keep the secret on
 * the server.
 */
export async function signPrompt(signingSecret: string, p: PromptToSign): Promise<string> {
  const lines = [
    'promptpix-sig-v1',
    normalize(p.prompt),
    p.style ?? '',
    `${p.width ?? 1024}x${p.height ?? 1024}`,
    p.character ?? '',
    p.age ?? '',
    p.seed === undefined ? '' : String(p.seed),
    p.negativePrompt === undefined ? '' : normalize(p.negativePrompt),
  ];
  if (lines.some((line) => line.includes('\n'))) throw new TypeError('style and character must not contain line breaks');
  const encoder = new TextEncoder();
  const key = await crypto.subtle.importKey('raw', encoder.encode(signingSecret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode(lines.join('\n'))));
  let binary = '';
  for (const byte of mac) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
