import { ImageInputMessages } from '@promptpix/contracts';
import { AppError, fieldError } from '../errors';
import { fitsUploadBudget } from '../image-inputs';
import { createUploadService, type SanitizedInput, type UploadRecord, type UploadStore } from './upload-service';

const NOW = new Date('2026-11-27T12:00:00Z');
const ME = '11111111-1111-4111-8111-111111111111';
const THEM = '22222222-2222-4222-8222-222222222222';
let ids = 0;
const newId = () => `00000000-0000-4000-8000-${String(++ids).padStart(12, '0')}`;

/** The store's rules over a Map (the repository's are proved on both databases in packages/db). */
function memoryUploads() {
  const rows = new Map<string, UploadRecord>();
  const touched: string[][] = [];
  const live = (u: UploadRecord, now: Date) => u.expiresAt > now;
  const store: UploadStore = {
    async heldBytes(accountId, now, except) {
      return [...rows.values()].filter((u) => u.accountId === accountId && live(u, now) && u.sha256 !== except).reduce((n, u) => n + u.bytes, 0);
    },
    async record(upload, { budgetBytes, now, expiresAt }) {
      const known = [...rows.values()].find((u) => u.accountId === upload.accountId && u.sha256 === upload.sha256 && live(u, now));
      if (known) return { upload: Object.assign(known, { expiresAt }), created: false };
      if (!fitsUploadBudget(await store.heldBytes(upload.accountId, now), upload.bytes, budgetBytes)) return null;
      const row = { ...upload, expiresAt };
      rows.set(row.id, row);
      return { upload: row, created: true };
    },
    async findLive(accountId, wanted, now) {
      return wanted.flatMap((id) => {
        const u = rows.get(id);
        return u && u.accountId === accountId && live(u, now) ? [u] : [];
      });
    },
    async touch(_accountId, used) {
      touched.push(used);
    },
    async removeExpired() {
      return [];
    },
  };
  return { store, rows, touched };
}

/** What the fake sanitiser reads from a test's "bytes": the sanitised image they stand for, and its size. */
type Described = Omit<SanitizedInput, 'data'> & { bytes: number };

function setup(budgetBytes = 1000) {
  const uploads = memoryUploads();
  const objects = new Map<string, Buffer>();
  const myImage = { id: '33333333-3333-4333-8333-333333333333', storageKey: `images/${'c'.repeat(64)}.webp`, width: 64, height: 48 };
  const service = createUploadService({
    uploads: uploads.store,
    images: { findOwned: async (id, accountId) => (id === myImage.id && accountId === ME ? myImage : null) },
    storage: {
      put: async (key, body) => void objects.set(key, body),
      delete: async (key) => void objects.delete(key),
    },
    sanitize: async (bytes, field) => {
      if (bytes.toString() === 'not an image') throw fieldError(field, ImageInputMessages.notAnImage);
      const { bytes: size, ...image } = JSON.parse(bytes.toString()) as Described;
      return { ...image, data: Buffer.alloc(size) };
    },
    budgetBytes,
    ttlHours: 24,
    now: () => NOW,
    newId,
  });
  return { service, uploads, objects, myImage };
}

async function fieldOf(promise: Promise<unknown>): Promise<[string, string]> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  const fieldErrors = ((error as AppError).body.details as { fieldErrors: Record<string, string[]> }).fieldErrors;
  const [field, messages] = Object.entries(fieldErrors)[0];
  return [field, messages[0]];
}

describe('upload service', () => {
  const uploadOf = (s: ReturnType<typeof setup>, image: Partial<Described> & { sha256: string }, accountId = ME) =>
    s.service.upload(accountId, Buffer.from(JSON.stringify({ width: 64, height: 48, hasAlpha: false, bytes: 100, ...image })));

  it('stores an upload under its account, as PNG, and answers its id, size and expiry', async () => {
    const s = setup();
    const { upload, created } = await uploadOf(s, { sha256: 'a'.repeat(64), width: 640, height: 480 });
    expect(created).toBe(true);
    expect(upload).toEqual({ id: expect.any(String), width: 640, height: 480, bytes: 100, expiresAt: '2026-11-28T12:00:00.000Z' });
    expect([...s.objects.keys()]).toEqual([`uploads/${ME}/${'a'.repeat(64)}.png`]);
  });

  it('a file that is no image is a 400 naming the form field it came in, and nothing is kept', async () => {
    const s = setup();
    expect(await fieldOf(s.service.upload(ME, Buffer.from('not an image')))).toEqual(['image', ImageInputMessages.notAnImage]);
    expect(await fieldOf(s.service.upload(ME, Buffer.from('not an image'), 'mask'))).toEqual(['mask', ImageInputMessages.notAnImage]);
    expect(s.objects.size).toBe(0);
  });

  it('past the budget: a 409 and nothing kept; the same content again is no new bytes', async () => {
    const s = setup(250);
    await uploadOf(s, { sha256: 'a'.repeat(64) });
    await uploadOf(s, { sha256: 'b'.repeat(64) });
    const refused = await uploadOf(s, { sha256: 'c'.repeat(64) }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ kind: 'conflict', message: ImageInputMessages.uploadBudget(250) });
    expect(s.objects.size).toBe(2);
    const again = await uploadOf(s, { sha256: 'a'.repeat(64) });
    expect(again.created).toBe(false);
  });

  it('resolves an edit: an upload and an owned image, the mask an upload with alpha of the first image’s size; uploads used are touched', async () => {
    const s = setup();
    const photo = (await uploadOf(s, { sha256: 'a'.repeat(64), width: 64, height: 48 })).upload;
    const mask = (await uploadOf(s, { sha256: 'b'.repeat(64), width: 64, height: 48, hasAlpha: true })).upload;
    const edit = await s.service.resolveEdit(ME, { images: [photo.id, s.myImage.id], mask: mask.id });
    expect(edit).toEqual({
      images: [
        { storageKey: `uploads/${ME}/${'a'.repeat(64)}.png`, sha256: 'a'.repeat(64), width: 64, height: 48, uploadId: photo.id },
        { storageKey: s.myImage.storageKey, sha256: 'c'.repeat(64), width: 64, height: 48 },
      ],
      mask: { storageKey: `uploads/${ME}/${'b'.repeat(64)}.png`, sha256: 'b'.repeat(64), width: 64, height: 48, uploadId: mask.id },
    });
    expect(s.uploads.touched).toEqual([[photo.id, mask.id]]);
  });

  it.each([
    ['an unknown id', { images: ['44444444-4444-4444-8444-444444444444'] }, ['image', ImageInputMessages.unknownInput]],
    ['not a uuid', { images: ['../../etc/passwd'] }, ['image', ImageInputMessages.unknownInput]],
    ['an unknown second image', { images: ['OWN', '44444444-4444-4444-8444-444444444444'] }, ['image[1]', ImageInputMessages.unknownInput]],
    ['an image as the mask', { images: ['OWN'], mask: 'OWN' }, ['mask', ImageInputMessages.maskNotUpload]],
    ['an unknown mask', { images: ['OWN'], mask: '44444444-4444-4444-8444-444444444444' }, ['mask', ImageInputMessages.unknownInput]],
    ['a mask without alpha', { images: ['OWN'], mask: 'OPAQUE' }, ['mask', ImageInputMessages.maskWithoutAlpha]],
    ['a mask of another size', { images: ['OWN'], mask: 'SMALL' }, ['mask', ImageInputMessages.maskSize({ width: 32, height: 32 }, { width: 64, height: 48 })]],
    ['too many images', { images: ['OWN', 'OWN', 'OWN', 'OWN', 'OWN'] }, ['image', 'At most 4 images']],
  ])('%s → 400 naming the field', async (_name, wanted, expected) => {
    const s = setup();
    const opaque = (await uploadOf(s, { sha256: 'd'.repeat(64), width: 64, height: 48 })).upload;
    const small = (await uploadOf(s, { sha256: 'e'.repeat(64), width: 32, height: 32, hasAlpha: true })).upload;
    const name = (id: string) => ({ OWN: s.myImage.id, OPAQUE: opaque.id, SMALL: small.id })[id] ?? id;
    const ids = { images: wanted.images.map(name), ...('mask' in wanted && { mask: name(wanted.mask as string) }) };
    expect(await fieldOf(s.service.resolveEdit(ME, ids))).toEqual(expected);
  });

  it('another account’s upload and image are unknown ids', async () => {
    const s = setup();
    const theirs = (await uploadOf(s, { sha256: 'a'.repeat(64) }, THEM)).upload;
    expect(await fieldOf(s.service.resolveEdit(ME, { images: [theirs.id] }))).toEqual(['image', ImageInputMessages.unknownInput]);
    expect(await fieldOf(s.service.resolveEdit(THEM, { images: [s.myImage.id] }))).toEqual(['image', ImageInputMessages.unknownInput]);
  });
});
