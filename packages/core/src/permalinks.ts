import { checkOrigin } from './domains';

export interface PermalinkCandidate {
  imageId: string;
  storageKey: string;
  pinned: boolean;
  rejected: boolean;
  addedAt: Date;
}

/** A permalink's images that can be served, in the order they were added. */
function liveImages<T extends PermalinkCandidate>(images: readonly T[]): T[] {
  return images.filter((i) => !i.rejected).sort((a, b) => a.addedAt.getTime() - b.addedAt.getTime() || a.imageId.localeCompare(b.imageId));
}

/**
 * The pinned image a permalink serves: the newest pin among its non-rejected images (an image
 * pinned elsewhere and then added can leave two pinned), or null when none is pinned.
 */
export function pinnedPermalinkImage<T extends PermalinkCandidate>(images: readonly T[]): T | null {
  return liveImages(images).findLast((i) => i.pinned) ?? null;
}

/**
 * The image a permalink serves (DECISIONS, "Permalinks and flags"): its pinned image if any,
 * otherwise round robin over its non-rejected images in the order they were added. Null when
 * it has none.
 */
export function choosePermalinkImage<T extends PermalinkCandidate>(images: readonly T[], rotation: number): T | null {
  const live = liveImages(images);
  if (live.length === 0) return null;
  const pinned = live.findLast((i) => i.pinned);
  if (pinned) return pinned;
  return live[((rotation % live.length) + live.length) % live.length];
}

/**
 * Referer check of the public image URL: the union of the account's publishable keys' domain
 * lists; a key with an empty list (or no publishable key at all) means any domain; no Referer
 * and localhost always pass.
 */
export function permalinkRefererAllowed(publishableKeyDomains: ReadonlyArray<readonly string[]>, referer: string | undefined): boolean {
  if (publishableKeyDomains.length === 0 || publishableKeyDomains.some((d) => d.length === 0)) return true;
  return checkOrigin(publishableKeyDomains.flat(), referer) !== 'blocked';
}
