import { STYLE_PRESETS } from '@promptpix/core';
import { createStylePreviewer } from '@promptpix/models';
import type { Infrastructure, Logger } from '@promptpix/runtime';

export interface StylePreviews {
  /** Preset id → preview URL, for the previews rendered so far. */
  current(): Record<string, string>;
  /** Settles when every preview exists (or failed and was logged). */
  ready: Promise<void>;
}

/**
 * Renders each preset's preview with the configured model in the background at start-up (stored
 * once under a content key, so restarts and other gateways find them instead of re-rendering).
 * Until a preview exists its `previewUrl` is null.
 */
export function startStylePreviews(infra: Pick<Infrastructure, 'model' | 'storage'>, logger: Logger): StylePreviews {
  let previews: Record<string, string> = {};
  const previewer = createStylePreviewer({ model: infra.model, storage: infra.storage, log: (line) => logger.debug(line) });
  const ready = previewer.ensurePreviews(STYLE_PRESETS).then(
    (urls) => {
      previews = urls;
      logger.info('style previews ready', { count: Object.keys(urls).length });
    },
    (error: unknown) => void logger.warn('style previews failed', { error }),
  );
  return { current: () => previews, ready };
}
