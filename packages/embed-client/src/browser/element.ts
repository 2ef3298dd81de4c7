import type { EmbedElementInput } from '@promptpix/contracts';

/**
 * Reads an element's service attributes into one resolve entry, checking the spec's bounds here
 * (Limits, Field and size bounds): one bad element must not turn the whole batch into a 400.
 */
export type ElementRequest = Pick<EmbedElementInput, 'prompt' | 'shortcut' | 'style' | 'width' | 'height' | 'format' | 'mode' | 'sig'>;

/** The attributes the script watches; a change to any of them re-resolves the element. */
export const WATCHED = ['prompt', 'shortcut', 'style', 'width', 'height', 'format', 'mode', 'sig'].map((name) => `data-service-${name}`);

const CHOICES = { format: ['png', 'jpeg', 'webp'], mode: ['generate', 'instant'] } as const satisfies {
  [K in 'format' | 'mode']: ReadonlyArray<NonNullable<ElementRequest[K]>>;
};

/**
 * `null`: nothing to resolve (no prompt and no shortcut). `{ error }`: an attribute is out of
 * bounds; the element keeps its fallback. A shortcut wins over a prompt: it never generates.
 */
export function readElement(attr: (name: string) => string | null): ElementRequest | { error: string } | null {
  const read = (name: string) => (attr(`data-service-${name}`) || '').trim();
  // The service refuses NUL characters (PostgreSQL cannot store them); the HTML parser never
  // produces one, but setAttribute can.
  const nul = WATCHED.find((name) => (attr(name) || '').includes('\0'));
  if (nul) return { error: `${nul}: must not contain NUL characters` };
  const shortcut = read('shortcut');
  const prompt = read('prompt');
  if (shortcut) return shortcut.length > 200 ? { error: 'data-service-shortcut: at most 200 characters' } : { shortcut };
  if (!prompt) return null;
  if (prompt.length > 2000) return { error: 'data-service-prompt: at most 2000 characters' };
  const request: ElementRequest = { prompt };
  const style = read('style');
  if (style.length > 200) return { error: 'data-service-style: at most 200 characters' };
  if (style) request.style = style;
  // The site's signature of prompt, style and size: a key in signed mode generates only for these.
  const sig = read('sig');
  if (sig.length > 200) return { error: 'data-service-sig: at most 200 characters' };
  if (sig) request.sig = sig;
  for (const name of ['width', 'height'] as const) {
    const value = read(name);
    if (!value) continue;
    if (!/^\d{3,4}$/.test(value) || +value < 256 || +value > 2048) return { error: `data-service-${name}: an integer from 256 to 2048` };
    request[name] = +value;
  }
  for (const name of ['format', 'mode'] as const) {
    const value = read(name).toLowerCase();
    if (!value) continue;
    const choices: readonly string[] = CHOICES[name];
    if (!choices.includes(value)) return { error: `data-service-${name}: one of ${choices.join(', ')}` };
    (request as Record<string, string>)[name] = value;
  }
  return request;
}
