import { type EditInputRef, ImageInputMessages, MAX_EDIT_IMAGES, type StoredInput, type Upload } from '@promptpix/contracts';
import { AppError, fieldError } from '../errors';
import { fitsUploadBudget, maskProblem, uploadExpiry, uploadStorageKey } from '../image-inputs';
import type { Storage } from '../ports/storage';

/** An upload as stored (packages/db's `createUploadRepository`). */
export interface UploadRecord {
  id: string;
  accountId: string;
  storageKey: string;
  sha256: string;
  width: number;
  height: number;
  bytes: number;
  hasAlpha: boolean;
  expiresAt: Date;
}

export type NewUploadRecord = Omit<UploadRecord, 'expiresAt'>;

/** Uploads' rows. Every read and write names the account: one account's uploads are never another's. */
export interface UploadStore {
  /** Bytes of the account's live (unexpired) uploads, leaving out the one of content `except` (a re-upload adds nothing). */
  heldBytes(accountId: string, now: Date, except?: string): Promise<number>;
  /**
   * Records an upload under the account's budget, as one step under the account's upload lock:
   * the account's live upload of the same content is touched and returned (`created: false`, no
   * bytes added); otherwise a row is written when the live uploads plus this one fit
   * `budgetBytes`; null when they do not.
   */
  record(upload: NewUploadRecord, terms: { budgetBytes: number; now: Date; expiresAt: Date }): Promise<{ upload: UploadRecord; created: boolean } | null>;
  /** The account's live uploads among `ids` (others' and expired ones are left out). */
  findLive(accountId: string, ids: string[], now: Date): Promise<UploadRecord[]>;
  /** Moves the expiry of the account's uploads among `ids` on (an edit used them). */
  touch(accountId: string, ids: string[], now: Date, expiresAt: Date): Promise<void>;
  /** Deletes up to `limit` expired rows; answers the storage keys no row points at any more (objects to delete). */
  removeExpired(now: Date, limit: number): Promise<string[]>;
}

/** An image sent in, sanitised (`sanitizeImageInput` of @promptpix/models): PNG, no metadata. */
export interface SanitizedInput {
  data: Buffer;
  width: number;
  height: number;
  hasAlpha: boolean;
  sha256: string;
}

/** What an edit may start from besides uploads: one of the account's own images. */
export interface OwnedImageLookup {
  findOwned(id: string, accountId: string): Promise<{ id: string; storageKey: string; width: number; height: number } | null>;
}

export interface UploadServiceDeps {
  uploads: UploadStore;
  images: OwnedImageLookup;
  storage: Pick<Storage, 'put' | 'delete'>;
  /** Raw bytes → sanitised PNG, or a 400 naming `field`. */
  sanitize(bytes: Buffer, field: string): Promise<SanitizedInput>;
  /** UPLOAD_BYTES_PER_ACCOUNT. */
  budgetBytes: number;
  /** UPLOAD_TTL_HOURS. */
  ttlHours: number;
  now: () => Date;
  newId: () => string;
}

/** What generate names as an edit's inputs: ids of uploads or of the account's images. */
export interface EditInputIds {
  /** The image edited first, then reference images (at most MAX_EDIT_IMAGES). */
  images: string[];
  /** An upload's id: transparent where the first image may change. */
  mask?: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const IMAGE_KEY = /^images\/([0-9a-f]{64})\.[a-z]+$/;

/** The field an input id came in: `image` when one was sent, `image[i]` of several. */
export const imageFieldOf = (index: number, count: number): string => (count === 1 ? 'image' : `image[${index}]`);

/** An image's content hash, from its content-addressed key (`images/<sha256>.<ext>`). */
const imageHashOf = (storageKey: string): string | null => IMAGE_KEY.exec(storageKey)?.[1] ?? null;

const uploadAnswer = (u: UploadRecord): Upload => ({ id: u.id, width: u.width, height: u.height, bytes: u.bytes, expiresAt: u.expiresAt.toISOString() });

/**
 * Images sent in (issue #31): uploads, and the references an edit's job carries. Uploads are
 * sanitised before anything is stored, stored under their account, counted against its budget
 * atomically, and expire `ttlHours` after their last use.
 */
export const createUploadService = (d: UploadServiceDeps) => {
  const overBudget = () => new AppError('conflict', ImageInputMessages.uploadBudget(d.budgetBytes), { code: 'upload_budget_exceeded' });

  /** An upload or one of the account's images as an edit's input; a 400 naming `field` when the account has neither. */
  async function storedInput(accountId: string, id: string, field: string, uploads: Map<string, UploadRecord>): Promise<StoredInput> {
    const upload = uploads.get(id.toLowerCase());
    if (upload) return { storageKey: upload.storageKey, sha256: upload.sha256, width: upload.width, height: upload.height, uploadId: upload.id };
    const image = UUID.test(id) ? await d.images.findOwned(id, accountId) : null;
    const sha256 = image && imageHashOf(image.storageKey);
    if (!image || !sha256) throw fieldError(field, ImageInputMessages.unknownInput);
    return { storageKey: image.storageKey, sha256, width: image.width, height: image.height };
  }

  return {
    /**
     * POST /api/v1/uploads: sanitises `bytes`, stores the PNG under the account and records it
     * under the account's budget (201 answer). The same content again is the same upload, its
     * expiry moved on. Over the budget: 409, nothing kept. A file that is no usable image is a 400
     * naming `field`, the form field it came in (`image`, `image[1]`, `mask`).
     */
    async upload(accountId: string, bytes: Buffer, field = 'image'): Promise<{ upload: Upload; created: boolean }> {
      const image = await d.sanitize(bytes, field);
      const now = d.now();
      // A cheap refusal before the write; the recorded count under the lock decides.
      if (!fitsUploadBudget(await d.uploads.heldBytes(accountId, now, image.sha256), image.data.length, d.budgetBytes)) throw overBudget();
      const storageKey = uploadStorageKey(accountId, image.sha256);
      // Written before the row (and again for a known upload), so a row never names a missing object.
      await d.storage.put(storageKey, image.data, 'image/png');
      const recorded = await d.uploads.record(
        {
          id: d.newId(),
          accountId,
          storageKey,
          sha256: image.sha256,
          width: image.width,
          height: image.height,
          bytes: image.data.length,
          hasAlpha: image.hasAlpha,
        },
        { budgetBytes: d.budgetBytes, now, expiresAt: uploadExpiry(now, d.ttlHours) },
      );
      if (!recorded) {
        // No live row holds this content (else it was touched): the object is ours to take back.
        await d.storage.delete(storageKey);
        throw overBudget();
      }
      return { upload: uploadAnswer(recorded.upload), created: recorded.created };
    },

    /**
     * The inputs of an edit, as its job carries them: each id an upload of the account (live) or
     * one of its images, the mask an upload with alpha of the first image's size. A 400 names the
     * field. The uploads used have their expiry moved on.
     */
    async resolveEdit(accountId: string, ids: EditInputIds): Promise<EditInputRef> {
      if (ids.images.length === 0) throw fieldError('mask', ImageInputMessages.maskWithoutImage);
      if (ids.images.length > MAX_EDIT_IMAGES) throw fieldError('image', `At most ${MAX_EDIT_IMAGES} images`);
      const now = d.now();
      const wanted = [...ids.images, ...(ids.mask ? [ids.mask] : [])].filter((id) => UUID.test(id));
      const live = await d.uploads.findLive(accountId, wanted, now);
      const uploads = new Map(live.map((u) => [u.id.toLowerCase(), u]));
      const images: StoredInput[] = [];
      for (const [index, id] of ids.images.entries()) images.push(await storedInput(accountId, id, imageFieldOf(index, ids.images.length), uploads));
      let mask: StoredInput | undefined;
      if (ids.mask !== undefined) {
        const upload = uploads.get(ids.mask.toLowerCase());
        if (!upload) {
          const image = UUID.test(ids.mask) ? await d.images.findOwned(ids.mask, accountId) : null;
          throw fieldError('mask', image ? ImageInputMessages.maskNotUpload : ImageInputMessages.unknownInput);
        }
        const problem = maskProblem(upload, images[0]);
        if (problem) throw fieldError('mask', problem);
        mask = { storageKey: upload.storageKey, sha256: upload.sha256, width: upload.width, height: upload.height, uploadId: upload.id };
      }
      const used = [...images, ...(mask ? [mask] : [])].flatMap((input) => (input.uploadId ? [input.uploadId] : []));
      if (used.length > 0) await d.uploads.touch(accountId, used, now, uploadExpiry(now, d.ttlHours));
      return { images, ...(mask && { mask }) };
    },

    /**
     * Housekeeping: deletes expired uploads' rows, then the objects no row names any more, in
     * batches of `batch`; how many objects. Rows first: an object is never deleted under a live row
     * (a re-upload of the same bytes writes the object again before its row).
     */
    async removeExpired(at: Date = d.now(), batch = 500): Promise<number> {
      let removed = 0;
      for (;;) {
        const keys = await d.uploads.removeExpired(at, batch);
        for (const key of keys) await d.storage.delete(key);
        removed += keys.length;
        if (keys.length < batch) return removed;
      }
    },
  };
};

export type UploadService = ReturnType<typeof createUploadService>;
