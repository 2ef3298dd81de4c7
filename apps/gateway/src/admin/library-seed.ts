import { newId, normalizePrompt, type ImageModel, type LibraryIndexer, type Storage } from '@promptpix/core';
import type { AccountRepository, ImageRepository, LibraryRepository } from '@promptpix/db';
import { encodeImage } from '@promptpix/models';

/** A varied starter library so instant mode answers on a fresh install. */
export const SAMPLE_LIBRARY: ReadonlyArray<{ prompt: string; style?: string; ageBucket?: string; tags: string[] }> = [
  { prompt: 'a lighthouse on a rocky coast at sunset', tags: ['coast', 'landscape'] },
  { prompt: 'a red fox in a snowy forest', tags: ['animals', 'winter'] },
  { prompt: 'a cat sleeping on a sunny windowsill', tags: ['animals', 'home'], ageBucket: 'kids' },
  { prompt: 'a friendly robot waving hello', tags: ['robots', 'characters'], ageBucket: 'kids' },
  { prompt: 'a city skyline at night in the rain', tags: ['city', 'night'] },
  { prompt: 'mountains above the clouds at dawn', tags: ['mountains', 'landscape'] },
  { prompt: 'a sailing boat on a calm ocean', tags: ['ocean', 'travel'] },
  { prompt: 'a desert with dunes under a starry sky', tags: ['desert', 'night'] },
  { prompt: 'a dog playing in a field of flowers', tags: ['animals', 'spring'], ageBucket: 'kids' },
  { prompt: 'a volcano erupting at dusk', tags: ['nature', 'fire'] },
  { prompt: 'a cozy cabin in a pine forest in winter', tags: ['winter', 'home'] },
  { prompt: 'planets and a ringed moon in deep space', tags: ['space', 'science'], ageBucket: 'bigkids' },
  { prompt: 'a tropical beach with palm trees', tags: ['coast', 'travel'] },
  { prompt: 'autumn leaves in a quiet park', tags: ['autumn', 'nature'] },
  { prompt: 'a hot air balloon over green hills', tags: ['travel', 'landscape'] },
  { prompt: 'a waterfall in a lush jungle', tags: ['nature', 'jungle'] },
  { prompt: 'a lighthouse on a rocky coast at sunset', style: 'watercolor', tags: ['coast', 'landscape'] },
  { prompt: 'a red fox in a snowy forest', style: 'cartoon', tags: ['animals', 'winter'], ageBucket: 'kids' },
  { prompt: 'a city skyline at night in the rain', style: 'cinematic', tags: ['city', 'night'] },
  { prompt: 'mountains above the clouds at dawn', style: 'photorealistic', tags: ['mountains', 'landscape'] },
  { prompt: 'a cat sleeping on a sunny windowsill', style: 'modern-illustration', tags: ['animals', 'home'] },
  { prompt: 'a team meeting in a bright modern office', tags: ['business', 'people'], ageBucket: 'adults' },
  { prompt: 'a bowl of fresh fruit on a wooden table', tags: ['food', 'home'] },
  { prompt: 'a snowy village at christmas', tags: ['winter', 'holidays'] },
];

export const LIBRARY_ACCOUNT_HANDLE = 'library';

export interface LibrarySeedDeps {
  accounts: AccountRepository;
  images: ImageRepository;
  library: LibraryRepository;
  /** Embeds the new samples at once, so instant mode matches them by meaning right after the seed. */
  libraryIndexer: LibraryIndexer | null;
  model: ImageModel;
  storage: Storage;
  now: () => Date;
  libraryDelaySeconds: number;
}

/**
 * Fills an empty library: renders the samples with the configured model under a system account
 * and dates them so they have already joined the library. Does nothing when it has images.
 */
export async function seedLibrary(d: LibrarySeedDeps): Promise<{ seeded: number; existing: number }> {
  const joinedBefore = new Date(d.now().getTime() - d.libraryDelaySeconds * 1000);
  const existing = await d.library.count(joinedBefore);
  if (existing > 0) return { seeded: 0, existing };
  const account =
    (await d.accounts.findByHandle(LIBRARY_ACCOUNT_HANDLE)) ??
    (await d.accounts.create({ handle: LIBRARY_ACCOUNT_HANDLE, email: 'library@localhost', status: 'suspended', plan: 'enterprise' }));
  let seed = 1;
  for (const sample of SAMPLE_LIBRARY) {
    const generated = await d.model.generate({ prompt: sample.prompt, style: sample.style, strength: 1, seed, width: 1024, height: 1024 });
    const encoded = await encodeImage(generated.data, { width: 1024, height: 1024, format: 'webp' });
    await d.storage.put(encoded.key, encoded.data, encoded.contentType);
    await d.images.save({
      id: newId(),
      accountId: account.id,
      prompt: sample.prompt,
      normalizedPrompt: normalizePrompt(sample.prompt),
      style: sample.style ?? null,
      strength: 1,
      ageBucket: sample.ageBucket ?? null,
      width: 1024,
      height: 1024,
      format: 'webp',
      seed: seed++,
      storageKey: encoded.key,
      bytes: encoded.data.length,
      tags: sample.tags,
      createdAt: joinedBefore,
    });
  }
  await d.libraryIndexer?.indexPending();
  return { seeded: SAMPLE_LIBRARY.length, existing: 0 };
}
