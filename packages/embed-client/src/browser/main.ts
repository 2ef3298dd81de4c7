/**
 * Entry of /service-client.js:
 *   <script src="{base_url}/service-client.js" data-key="pk_live_..."></script>
 * The API base is the origin of the script's own src. The only global is `PromptPix`, which also
 * keeps a page that includes the script twice from running it twice.
 */
import { start } from './client';

try {
  const w = window as unknown as { PromptPix?: { version: number } };
  const script = (document.currentScript || document.querySelector('script[src*="service-client.js"][data-key]')) as HTMLScriptElement | null;
  const key = script?.getAttribute('data-key');
  if (!script || !key) console.warn('service-client.js: add data-key="pk_live_..." to the script tag');
  else if (!w.PromptPix) {
    w.PromptPix = { version: 1 };
    start(new URL(script.src).origin, key, document);
  }
} catch {
  // never into the host page
}
