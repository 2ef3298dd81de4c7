import type { Database } from '../client';
import { bothDatabases } from '../testing';
import { createPermalinkRepository } from './permalinks';

describe.each(bothDatabases)('permalink repository (%s)', (_name, open) => {
  let db: Database;
  let cleanup: () => Promise<void>;
  beforeAll(async () => ({ db, cleanup } = await open()));
  afterAll(() => cleanup());

  it('saves made at once to one new name all land in one permalink', async () => {
    const account = await db.prisma.account.create({ data: { handle: 'racer', email: 'racer@example.com', status: 'approved' } });
    const images = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        db.prisma.image.create({
          data: {
            accountId: account.id,
            prompt: `p${i}`,
            normalizedPrompt: `p${i}`,
            width: 256,
            height: 256,
            format: 'webp',
            seed: BigInt(i),
            storageKey: `images/${i}.webp`,
            bytes: 1,
          },
        }),
      ),
    );
    const permalinks = createPermalinkRepository(db.prisma);
    for (let round = 0; round < 5; round++) {
      const name = `hero-${round}`;
      const saved = await Promise.all(images.map((image) => permalinks.addImageByName(account.id, name, image.id)));
      expect(new Set(saved.map((p) => p?.id)).size).toBe(1);
      const [listed] = await permalinks.listForAccount(account.id, name);
      expect(listed.images).toHaveLength(images.length);
    }
  });
});
