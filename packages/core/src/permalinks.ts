import { checkOrigin } from './domains';

export interface PermalinkCandidate {
  imageId: string;
  storageKey: string;
  pinned: boolean;
  rejected: boolean;
  addedAt: Date;
}

/**
 * The image a permalink serves (DECISIONS, "Permalinks and flags"): its pinned image if any
 * (the newest pin), otherwise round robin over its non-rejected images in the order they were
 * added. Null when it has none.
 */
export function choosePermalinkImage<T extends PermalinkCandidate>(images: readonly T[], rotation: number): T | null {
  const live = images.filter((i) => !i.rejected).sort((a, b) => a.addedAt.getTime() - b.addedAt.getTime() || a.imageId.localeCompare(b.imageId));
  if (live.length === 0) return null;
  const pinned = live.filter((i) => i.pinned);
  if (pinned.length > 0) return pinned[pinned.length - 1];
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
