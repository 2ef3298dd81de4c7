import { Prisma } from '../generated/client';
import type { Database } from '../client';
import { bothDatabases } from '../testing';
import { createLibraryIndexer, type MeaningVector, type PromptEmbedder } from '@promptpix/core';
import { createEmbeddedEmbedder } from '@promptpix/models';
import { COSINE_CANDIDATES, KEY_ROW_BUDGET, createLibraryRepository, nearestLibraryImageSql } from './library';

const SUBJECTS = [
  'fox',
  'lighthouse',
  'castle',
  'robot',
  'dragon',
  'garden',
  'harbour',
  'city',
  'forest',
  'desert',
  'owl',
  'train',
  'violin',
  'comet',
  'bakery',
];
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

const encoder = createEmbeddedEmbedder();
/** Both databases index the same 10,000 prompts: each prompt is embedded once, for the first. */
const vectorsByText = new Map<string, MeaningVector>();
const embedder: PromptEmbedder = {
  space: encoder.space,
  calibration: encoder.calibration,
  async embed(texts, use) {
    const missing = [...new Set(texts.filter((t) => !vectorsByText.has(t)))];
    const vectors = missing.length > 0 ? await encoder.embed(missing, use) : [];
    for (const [i, vector] of vectors.entries()) vectorsByText.set(missing[i], vector);
    return texts.map((t) => vectorsByText.get(t)!);
  },
};

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Subplan Name'?: string;
  Plans?: PlanNode[];
}

/** Every node of an EXPLAIN (ANALYZE, FORMAT JSON) plan, with the subplan each sits in. */
function planNodes(node: PlanNode, subplan = ''): Array<PlanNode & { within: string }> {
  const within = node['Subplan Name'] ?? subplan;
  return [{ ...node, within }, ...(node.Plans ?? []).flatMap((child) => planNodes(child, within))];
}

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
    const rows = await db.prisma.$queryRaw<Array<{ 'QUERY PLAN': unknown }>>(
      Prisma.sql`EXPLAIN (FORMAT JSON) ${nearestLibraryImageSql(query('a dragon under stars'))}`,
    );
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

    it('by meaning: the exact prompt and the candidates (GIN index over concept and band keys) come from indexes, no scan of the table', async () => {
      const q = { ...query('a vixen beneath the stars'), meaning: await meaningOf('a vixen beneath the stars') };
      const rows = await db.prisma.$queryRaw<Array<{ 'QUERY PLAN': unknown }>>(Prisma.sql`EXPLAIN (FORMAT JSON) ${nearestLibraryImageSql(q)}`);
      const plan = JSON.stringify(rows[0]['QUERY PLAN']);
      expect(plan).toContain('Image_meaningKeys_idx');
      expect(plan).toContain('Image_normalizedPrompt_trgm_idx');
      // (The small per-key count table may be read whole; the library never is.)
      const nodes = planNodes((rows[0]['QUERY PLAN'] as Array<{ Plan: PlanNode }>)[0].Plan);
      expect(nodes.filter((n) => n['Node Type'] === 'Seq Scan' && n['Relation Name'] === 'Image')).toEqual([]);
      if (process.env.SHOW_PLAN) console.log(plan);
    });

    it('by meaning: the rows the query reads stay bounded when a key of the prompt is on every row', async () => {
      const library = createLibraryRepository(db.prisma);
      const prompt = 'a number of dragons under the stars';
      const meaning = await meaningOf(prompt);
      // The premise: "number" is in all 10,000 prompts, so one of the query's keys is on every row.
      const counts = await library.keyCounts(embedder.space, meaning.vector.keys);
      expect(Math.max(...counts.values())).toBeGreaterThanOrEqual(10_000);
      const rows = await db.prisma.$queryRaw<Array<{ 'QUERY PLAN': unknown }>>(
        Prisma.sql`EXPLAIN (ANALYZE, FORMAT JSON) ${nearestLibraryImageSql({ ...query(prompt), meaning })}`,
      );
      const nodes = planNodes((rows[0]['QUERY PLAN'] as Array<{ Plan: PlanNode }>)[0].Plan);
      const keyScan = nodes.find((n) => n['Index Name'] === 'Image_meaningKeys_idx');
      expect(keyScan).toBeDefined();
      // Only the rarest keys' rows are read (the dragons and the stars), not the 10,000 with "number".
      expect(keyScan!['Actual Rows']).toBeGreaterThan(0);
      expect(keyScan!['Actual Rows']).toBeLessThanOrEqual(KEY_ROW_BUDGET);
      // The exact cosine (a hash join of the two vectors' terms) runs on at most COSINE_CANDIDATES rows.
      const cosines = nodes.filter((n) => n['Node Type'] === 'Hash Join');
      expect(cosines.length).toBeGreaterThan(0);
      for (const join of cosines) expect(join['Actual Loops']).toBeLessThanOrEqual(COSINE_CANDIDATES);
      const [best] = (await library.candidates({ ...query(prompt), meaning })).filter((c) => c.cosine !== null);
      expect(best.normalizedPrompt).toMatch(/^a dragon under stars/);
    });

    it('by meaning: the indexer counts the keys of each embedded original exactly once', async () => {
      const library = createLibraryRepository(db.prisma);
      const actual = await db.prisma.$queryRaw<Array<{ key: number; n: number }>>`
        SELECT k.key, count(*)::int AS n FROM "Image", unnest("meaningKeys") AS k(key)
        WHERE "sourceImageId" IS NULL AND "meaningSpace" = ${embedder.space} GROUP BY k.key`;
      expect(actual.length).toBeGreaterThan(10);
      const counts = await library.keyCounts(
        embedder.space,
        actual.map((r) => r.key),
      );
      expect(Object.fromEntries(counts)).toEqual(Object.fromEntries(actual.map((r) => [r.key, r.n])));
      // Storing vectors again for rows that already have them (another indexer got there first) adds nothing.
      const some = await db.prisma.image.findMany({ where: { meaningSpace: embedder.space }, take: 50, select: { id: true, normalizedPrompt: true } });
      const vectors = await embedder.embed(some.map((r) => r.normalizedPrompt));
      await library.saveMeanings(
        embedder.space,
        some.map((r, i) => ({ id: r.id, vector: vectors[i] })),
      );
      expect(
        Object.fromEntries(
          await library.keyCounts(
            embedder.space,
            actual.map((r) => r.key),
          ),
        ),
      ).toEqual(Object.fromEntries(actual.map((r) => [r.key, r.n])));
    });

    it('by meaning: a paraphrase finds its subject, with the cosine and the trigram similarity', async () => {
      const library = createLibraryRepository(db.prisma);
      // No content word in common. (With the word vectors, "a vixen beneath the stars" no longer
      // finds the fox: GloVe's "vixen" sits near other senses, and "a dragon under stars" wins.)
      const paraphrase = 'a seaside beacon tower in the mist';
      const candidates = await library.candidates({ ...query(paraphrase), meaning: await meaningOf(paraphrase) });
      const best = candidates.reduce((a, b) => ((b.cosine ?? 0) > (a.cosine ?? 0) ? b : a));
      expect(best.normalizedPrompt).toMatch(/^a lighthouse in fog/);
      expect(best.cosine).toBeGreaterThan(0.2);
      expect(best.trigram).toBeGreaterThanOrEqual(0);
    });
  });

  it('finds the exact prompt first, then the nearest, with a similarity score', async () => {
    const library = createLibraryRepository(db.prisma);
    const [{ prompt }] = await db.prisma.$queryRaw<
      Array<{ prompt: string }>
    >`SELECT "normalizedPrompt" AS prompt FROM "Image" ORDER BY "seed" LIMIT 1 OFFSET 4321`;
    const [hit] = await library.candidates(query(prompt));
    expect(hit?.normalizedPrompt).toBe(prompt);
    expect(hit?.trigram).toBe(1);
    const [near] = await library.candidates(query('dragon beneath the stars'));
    expect(near?.normalizedPrompt).toMatch(/dragon/);
    expect(near!.trigram).toBeGreaterThan(0);
    expect(near!.trigram).toBeLessThan(1);
  });

  it("never offers an edit's image, which shows what its account sent in", async () => {
    const library = createLibraryRepository(db.prisma);
    const account = await db.prisma.account.findFirstOrThrow();
    const prompt = 'a portrait from my own photo';
    await db.prisma.image.create({
      data: {
        accountId: account.id,
        prompt,
        normalizedPrompt: prompt,
        width: 64,
        height: 64,
        format: 'png',
        seed: 1,
        storageKey: 'images/edit.png',
        bytes: 1,
        inputKey: 'a'.repeat(64),
        createdAt: new Date(Date.now() - 40 * 24 * 3600 * 1000),
      },
    });
    expect((await library.candidates(query(prompt))).map((c) => c.normalizedPrompt)).not.toContain(prompt);
    expect(await library.unindexed(embedder.space, 20_000)).not.toContainEqual(expect.objectContaining({ normalizedPrompt: prompt }));
  });

  it('filters by tags and style', async () => {
    const library = createLibraryRepository(db.prisma);
    const [{ prompt }] = await db.prisma.$queryRaw<
      Array<{ prompt: string }>
    >`SELECT "normalizedPrompt" AS prompt FROM "Image" WHERE 'odd' = ANY("tags") LIMIT 1`;
    const [even] = await library.candidates(query(prompt, { tags: ['even'] }));
    expect(even?.tags).toEqual(['even']);
    expect(even?.normalizedPrompt).not.toBe(prompt);
    expect(await library.candidates(query('a dragon under stars', { style: 'watercolor' }))).toEqual([]);
  });
});
