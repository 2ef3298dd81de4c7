import { Prisma } from '../generated/client';
import type { Database } from '../client';
import { bothDatabases } from '../testing';
import { createLibraryIndexer } from '@promptpix/core';
import { createWordNetEmbedder } from '@promptpix/models';
import { createLibraryRepository, nearestLibraryImageSql } from './library';

const SUBJECTS = ['fox', 'lighthouse', 'castle', 'robot', 'dragon', 'garden', 'harbour', 'city', 'forest', 'desert', 'owl', 'train', 'violin', 'comet', 'bakery'];
const SETTINGS = ['at dawn', 'in the rain', 'under stars', 'in winter', 'by the sea', 'on a hill', 'at noon', 'in fog'];

/** 10,000 library images: one INSERT ... SELECT generate_series. */
async function fillLibrary(db: Database, count: number) {
  const account = await db.prisma.account.create({ data: { handle: `lib-${Date.now()}`, email: 'l@x.io' } });
  await db.prisma.$executeRaw`
    INSERT INTO "Image" ("id", "accountId", "prompt", "normalizedPrompt", "width", "height", "format", "seed", "storageKey", "bytes", "tags", "createdAt")
    SELECT gen_random_uuid(), ${account.id}::uuid, p, p, 1024, 1024, 'webp', i, 'images/' || i || '.webp', 1,
           ARRAY[CASE WHEN i % 2 = 0 THEN 'even' ELSE 'odd' END], now() - interval '40 days'
    FROM (
      SELECT i, 'a ' || (${SUBJECTS}::text[])[1 + i % ${SUBJECTS.length}] || ' ' || (${SETTINGS}::text[])[1 + (i / 15) % ${SETTINGS.length}] || ' number ' || i AS p
      FROM generate_series(1, ${count}) AS i
    ) AS rows`;
  await db.prisma.$executeRawUnsafe('ANALYZE "Image"');
}


const embedder = createWordNetEmbedder();

describe.each(bothDatabases)('shared library nearest match over 10,000 images (%s)', (_name, open) => {
  let db: Database;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    ({ db, cleanup } = await open());
    await fillLibrary(db, 10_000);
  }, 120_000);
  afterAll(() => cleanup());

  const query = (normalizedPrompt: string, extra: { tags?: string[]; style?: string | null } = {}) => ({
    normalizedPrompt,
    style: extra.style ?? null,
    tags: extra.tags,
    joinedBefore: new Date(Date.now() - 30 * 24 * 3600 * 1000),
  });

  it('is one query whose candidates come from the trigram index, not a scan of the table', async () => {
    const rows = await db.prisma.$queryRaw<Array<{ 'QUERY PLAN': unknown }>>(Prisma.sql`EXPLAIN (FORMAT JSON) ${nearestLibraryImageSql(query('a dragon under stars'))}`);
    const plan = JSON.stringify(rows[0]['QUERY PLAN']);
    expect(plan).toContain('Image_normalizedPrompt_trgm_idx');
    expect(plan).toMatch(/"Node Type":"(Index Scan|Bitmap Index Scan)"/);
    expect(plan).not.toMatch(/"Node Type":"Seq Scan"/);
    if (process.env.SHOW_PLAN) console.log(plan);
  });

  describe('by meaning, once the indexer has embedded the library', () => {
    beforeAll(async () => {
      await createLibraryIndexer({ library: createLibraryRepository(db.prisma), embedder, batchSize: 1000 }).indexPending();
      await db.prisma.$executeRawUnsafe('VACUUM ANALYZE "Image"');
    }, 240_000);

    const meaningOf = async (prompt: string) => ({ space: embedder.space, vector: (await embedder.embed([prompt]))[0] });

    it('by meaning: the exact prompt and the candidates (GIN index over concept keys) come from indexes, no scan of the table', async () => {
      const q = { ...query('a vixen beneath the stars'), meaning: await meaningOf('a vixen beneath the stars') };
      const rows = await db.prisma.$queryRaw<Array<{ 'QUERY PLAN': unknown }>>(Prisma.sql`EXPLAIN (FORMAT JSON) ${nearestLibraryImageSql(q)}`);
      const plan = JSON.stringify(rows[0]['QUERY PLAN']);
      expect(plan).toContain('Image_meaningKeys_idx');
      expect(plan).toContain('Image_normalizedPrompt_trgm_idx');
      expect(plan).not.toMatch(/"Node Type":"Seq Scan"/);
      if (process.env.SHOW_PLAN) console.log(plan);
    });

    it('by meaning: a paraphrase finds its subject, with the cosine and the trigram similarity', async () => {
      const library = createLibraryRepository(db.prisma);
      const candidates = await library.candidates({ ...query('a vixen beneath the stars'), meaning: await meaningOf('a vixen beneath the stars') });
      const best = candidates.reduce((a, b) => ((b.cosine ?? 0) > (a.cosine ?? 0) ? b : a));
      expect(best.normalizedPrompt).toMatch(/^a fox under stars/);
      expect(best.cosine).toBeGreaterThan(0.2);
      expect(best.trigram).toBeGreaterThanOrEqual(0);
    });
  });

  it('finds the exact prompt first, then the nearest, with a similarity score', async () => {
    const library = createLibraryRepository(db.prisma);
    const [{ prompt }] = await db.prisma.$queryRaw<Array<{ prompt: string }>>`SELECT "normalizedPrompt" AS prompt FROM "Image" ORDER BY "seed" LIMIT 1 OFFSET 4321`;
    const [hit] = await library.candidates(query(prompt));
    expect(hit?.normalizedPrompt).toBe(prompt);
    expect(hit?.trigram).toBe(1);
    const [near] = await library.candidates(query('dragon beneath the stars'));
    expect(near?.normalizedPrompt).toMatch(/dragon/);
    expect(near!.trigram).toBeGreaterThan(0);
    expect(near!.trigram).toBeLessThan(1);
  });

  it('filters by tags and style', async () => {
    const library = createLibraryRepository(db.prisma);
    const [{ prompt }] = await db.prisma.$queryRaw<Array<{ prompt: string }>>`SELECT "normalizedPrompt" AS prompt FROM "Image" WHERE 'odd' = ANY("tags") LIMIT 1`;
    const [even] = await library.candidates(query(prompt, { tags: ['even'] }));
    expect(even?.tags).toEqual(['even']);
    expect(even?.normalizedPrompt).not.toBe(prompt);
    expect(await library.candidates(query('a dragon under stars', { style: 'watercolor' }))).toEqual([]);
  });
});
