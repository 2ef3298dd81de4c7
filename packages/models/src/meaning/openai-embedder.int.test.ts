import { cosine, createLibraryIndexer, createInstantService } from '@promptpix/core';
import { TransientModelError } from '@promptpix/core';
import { createLibraryRepository } from '@promptpix/db';
import { bothDatabases } from '@promptpix/db/testing';
import { fakeEmbedding, startFakeEmbeddings, times, type FakeEmbeddingsBehaviour, type FakeProviderServer } from '@promptpix/testing/fake-providers';
import { PermanentModelError } from '../providers/errors';
import { createOpenAIEmbedder, type OpenAIEmbedderConfig } from './openai-embedder';

const API_KEY = 'sk-embed-0123456789abcdef';
const fastRetry = { attempts: 3, baseDelayMs: 10, maxDelayMs: 40 };

let fake: FakeProviderServer<FakeEmbeddingsBehaviour>;
beforeAll(async () => {
  fake = await startFakeEmbeddings({ apiKey: API_KEY, dimensions: 96 });
});
afterAll(() => fake.stop());
beforeEach(() => {
  fake.setBehaviour({});
  fake.requests.length = 0;
});

const embedder = (overrides: Partial<OpenAIEmbedderConfig> = {}) =>
  createOpenAIEmbedder({
    baseUrl: `${fake.url}/v1`,
    apiKey: API_KEY,
    model: 'text-embedding-3-small',
    calibration: { floor: 0.2, ceiling: 0.6 },
    timeoutMs: 5000,
    retry: fastRetry,
    ...overrides,
  });

describe('OpenAI-compatible embeddings adapter', () => {
  it('posts model, inputs and float encoding with the bearer key, and stores unit vectors in the order sent', async () => {
    const [a, b] = await embedder().embed(['a red fox in the snow', 'a lighthouse at dusk']);
    expect(fake.requests).toHaveLength(1);
    const [sent] = fake.requests;
    expect([sent.method, sent.path, sent.headers.authorization, sent.headers['content-type']]).toEqual([
      'POST',
      '/v1/embeddings',
      `Bearer ${API_KEY}`,
      'application/json',
    ]);
    expect(sent.json).toEqual({ model: 'text-embedding-3-small', input: ['a red fox in the snow', 'a lighthouse at dusk'], encoding_format: 'float' });
    expect(a.terms).toHaveLength(96);
    expect(a.weights).toEqual(fakeEmbedding('a red fox in the snow', 96).map((v) => expect.closeTo(v, 6)));
    expect(cosine(a, a)).toBeCloseTo(1, 6);
    expect(cosine(b, b)).toBeCloseTo(1, 6);
    expect(a.keys).toHaveLength(24);
  });

  it('sends `dimensions` when configured and names the vector space after model and length', async () => {
    const e = embedder({ dimensions: 32 });
    const [v] = await e.embed(['a fox']);
    expect(fake.requests[0].json.dimensions).toBe(32);
    expect(v.terms).toHaveLength(32);
    expect(e.space).toBe('openai-compatible/text-embedding-3-small/32');
  });

  it('splits a large batch into requests of 64 inputs', async () => {
    const texts = Array.from({ length: 130 }, (_, i) => `prompt number ${i}`);
    const vectors = await embedder().embed(texts);
    expect(vectors).toHaveLength(130);
    expect(fake.requests.map((r) => r.json.input.length)).toEqual([64, 64, 2]);
  });

  it('retries 429 and 5xx, then answers', async () => {
    fake.setBehaviour({ failures: [{ status: 429, retryAfter: 0 }, ...times(1, { status: 503 })] });
    await expect(embedder().embed(['a fox'])).resolves.toHaveLength(1);
    expect(fake.requests).toHaveLength(3);
  });

  it('a wrong key is a permanent error carrying the server message, not retried', async () => {
    const attempt = embedder({ apiKey: 'sk-wrong' }).embed(['a fox']);
    await expect(attempt).rejects.toThrow(PermanentModelError);
    await expect(embedder({ apiKey: 'sk-wrong' }).embed(['a fox'])).rejects.toThrow(/embeddings: HTTP 401: Incorrect API key/);
    expect(fake.requests).toHaveLength(2);
  });

  it('a server that stays down is a transient error after the configured attempts', async () => {
    fake.setBehaviour({ failures: times(5, { status: 500 }) });
    await expect(embedder().embed(['a fox'])).rejects.toThrow(TransientModelError);
    expect(fake.requests).toHaveLength(3);
  });

  it('close vectors share a band key (the index finds them); unrelated ones mostly do not', async () => {
    const words = Array.from({ length: 200 }, (_, i) => `word${i}x`);
    const near = Array.from({ length: 40 }, (_, i) => [
      `${words[i]} ${words[i + 40]} ${words[i + 80]} ${words[i + 120]}`,
      `${words[i]} ${words[i + 40]} ${words[i + 80]} ${words[i + 160]}`,
    ]);
    const far = Array.from({ length: 40 }, (_, i) => [`${words[i]} ${words[i + 40]}`, `${words[i + 80]} ${words[i + 120]}`]);
    const e = embedder();
    const sharesKey = async ([x, y]: string[]) => {
      const [a, b] = await e.embed([x, y]);
      return a.keys.some((k) => b.keys.includes(k));
    };
    const nearFound = (await Promise.all(near.map(sharesKey))).filter(Boolean).length / near.length;
    const farFound = (await Promise.all(far.map(sharesKey))).filter(Boolean).length / far.length;
    expect(nearFound).toBeGreaterThanOrEqual(0.8);
    expect(farFound).toBeLessThanOrEqual(0.25);
  });
});

describe.each(bothDatabases)('instant mode through the upstream adapter (%s)', (_name, open) => {
  it('library vectors come from the server; the nearest shares meaning, exact stays exact, unrelated is null', async () => {
    const { db, cleanup } = await open();
    try {
      const account = await db.prisma.account.create({ data: { handle: 'upstream-lib', email: 'u@x.io' } });
      const prompts = ['a red fox in a snowy forest', 'a lighthouse on a rocky coast at sunset', 'a bowl of fresh fruit on a wooden table'];
      await db.prisma.$executeRaw`
        INSERT INTO "Image" ("id", "accountId", "prompt", "normalizedPrompt", "width", "height", "format", "seed", "storageKey", "bytes", "createdAt")
        SELECT gen_random_uuid(), ${account.id}::uuid, p, p, 64, 64, 'webp', n, 'images/u-' || n || '.webp', 1, now() - interval '1 day'
        FROM unnest(${prompts}::text[]) WITH ORDINALITY AS t(p, n)`;
      const library = createLibraryRepository(db.prisma);
      const e = embedder();
      expect(await createLibraryIndexer({ library, embedder: e }).indexPending()).toBe(3);
      const instant = createInstantService({
        library,
        embedder: e,
        saveCopy: async () => undefined,
        storage: { publicUrl: (k) => k },
        now: () => new Date(),
        libraryDelaySeconds: 0,
        minScore: 0.3,
      });
      const lighthouse = await db.prisma.image.findFirstOrThrow({ where: { prompt: prompts[1] } });
      const near = await instant.match(account.id, { prompt: 'lighthouse, rocky sunset' });
      expect(near).toMatchObject({ match: 'nearest', poolImageId: lighthouse.id });
      expect(near!.matchScore).toBeGreaterThanOrEqual(0.3);
      expect(await instant.match(account.id, { prompt: prompts[1] })).toMatchObject({ match: 'exact', matchScore: 1, poolImageId: lighthouse.id });
      expect(await instant.match(account.id, { prompt: 'quarterly tax spreadsheet' })).toBeNull();
    } finally {
      await cleanup();
    }
  }, 60_000);
});
