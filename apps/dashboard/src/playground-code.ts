/**
 * The public API call equal to what the playground just did, as curl and as the SDK, with the key
 * masked: the playground signs in with a session, and the dashboard never holds a clear key.
 */
import type { PlaygroundInput } from '@promptpix/contracts';

/** The key shown in the samples: a secret key's stored prefix and an ellipsis, or a placeholder when the account has none. */
export const maskedKey = (secretKeyPrefix: string | null): string => `${secretKeyPrefix ?? 'sk_live_'}…`;

/** The body as a caller would send it: what the user set, nothing left empty. */
export function requestBody(input: PlaygroundInput): PlaygroundInput {
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined && value !== '' && value !== null)) as PlaygroundInput;
}

const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

export function curlCommand(baseUrl: string, key: string, input: PlaygroundInput): string {
  return [
    `curl -s -X POST ${shellQuote(`${baseUrl}/api/v1/generate`)} \\`,
    `  -H ${shellQuote(`Authorization: Bearer ${key}`)} \\`,
    `  -H 'Content-Type: application/json' \\`,
    `  -d ${shellQuote(JSON.stringify(requestBody(input)))}`,
  ].join('\n');
}

export function sdkCall(baseUrl: string, key: string, input: PlaygroundInput): string {
  const { mode, ...body } = requestBody(input);
  const args = JSON.stringify(body, null, 2);
  const call = mode === 'instant' ? `const match = await pp.instant(${args});` : `const job = await pp.generateAndWait(${args});`;
  return [
    `import { PromptPix } from '@promptpix/sdk';`,
    ``,
    `// apiKey: your secret key (${key})`,
    `const pp = new PromptPix({ baseUrl: ${JSON.stringify(baseUrl)}, apiKey: process.env.PROMPTPIX_KEY });`,
    call,
  ].join('\n');
}
