import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInstantService, createLibraryIndexer } from '@promptpix/core';
import { createLibraryRepository } from '@promptpix/db';
import { bothDatabases } from '@promptpix/db/testing';
import { createPromptEmbedder } from '@promptpix/models';
import { removeTinyModels, writeTinyModel } from '@promptpix/testing/local-model';
import { startServiceProcess } from '@promptpix/testing';
import { loadConfig } from './config';

afterAll(removeTinyModels);

describe.each(bothDatabases)('instant mode with INSTANT_EMBEDDINGS=local (%s)', (_name, open) => {
  it('the library is embedded by the local model; a paraphrase finds its image, exact stays exact, unrelated is null', async () => {
    const { dir } = writeTinyModel({ poolingMode: 'mean_tokens' });
    const config = loadConfig({ INSTANT_EMBEDDINGS: 'local', EMBEDDINGS_MODEL_DIR: dir });
    const embedder = createPromptEmbedder(config.instantEmbeddings)!;
    await embedder.ready?.();
    expect(embedder.space).toMatch(/^local\/promptpix\/tiny-sentence-encoder\//);

    const { db, cleanup } = await open();
    try {
      const account = await db.prisma.account.create({ data: { handle: 'local-lib', email: 'l@x.io' } });
      const prompts = ['a red fox in a snowy forest', 'a lighthouse on a rocky coast at sunset', 'a bowl of fresh fruit on a wooden table'];
      await db.prisma.$executeRaw`
        INSERT INTO "Image" ("id", "accountId", "prompt", "normalizedPrompt", "width", "height", "format", "seed", "storageKey", "bytes", "createdAt")
        SELECT gen_random_uuid(), ${account.id}::uuid, p, p, 64, 64, 'webp', n, 'images/l-' || n || '.webp', 1, now() - interval '1 day'
        FROM unnest(${prompts}::text[]) WITH ORDINALITY AS t(p, n)`;
      const library = createLibraryRepository(db.prisma);
      expect(await createLibraryIndexer({ library, embedder }).indexPending()).toBe(3);
      const instant = createInstantService({
        library,
        embedder,
        saveCopy: async () => undefined,
        storage: { publicUrl: (k) => k },
        now: () => new Date(),
        libraryDelaySeconds: 0,
        minScore: config.instantMinScore,
      });
      const lighthouse = await db.prisma.image.findFirstOrThrow({ where: { prompt: prompts[1] } });
      const fox = await db.prisma.image.findFirstOrThrow({ where: { prompt: prompts[0] } });

      const near = await instant.match(account.id, { prompt: 'beacon on the shore at dusk' });
      expect(near).toMatchObject({ match: 'nearest', poolImageId: lighthouse.id });
      expect(near!.matchScore).toBeGreaterThanOrEqual(config.instantMinScore);
      expect(await instant.match(account.id, { prompt: 'a wolf in the snow' })).toMatchObject({ match: 'nearest', poolImageId: fox.id });
      expect(await instant.match(account.id, { prompt: prompts[1] })).toMatchObject({ match: 'exact', matchScore: 1, poolImageId: lighthouse.id });
      expect(await instant.match(account.id, { prompt: 'quarterly tax spreadsheet' })).toBeNull();
    } finally {
      await cleanup();
    }
  }, 60_000);
});

describe('the server process with INSTANT_EMBEDDINGS=local (built bundle, onnxruntime-node loaded from node_modules)', () => {
  const start = (modelDir: string) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'promptpix-local-model-server-'));
    dataDirs.push(dataDir);
    return startServiceProcess('server', {
      INSTANT_EMBEDDINGS: 'local',
      EMBEDDINGS_MODEL_DIR: modelDir,
      DATA_DIR: dataDir,
      PORT: '0',
      STYLE_PREVIEWS: 'off',
      LOG_FORMAT: 'json',
      NODE_ENV: 'test',
      ADMIN_TOKEN: 'local-model-admin-token-0123456789',
    });
  };
  const dataDirs: string[] = [];
  afterAll(() => {
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  });

  it('starts with the model loaded', async () => {
    const server = start(writeTinyModel({ poolingMode: 'mean_tokens' }).dir);
    try {
      await waitFor(() => server.lines().some((l) => l.message === 'promptpix listening') || server.child.exitCode !== null, 60_000);
      expect(server.output()).not.toMatch(/failed to start|Invalid configuration/);
      expect(server.lines().some((l) => l.message === 'promptpix listening')).toBe(true);
    } finally {
      await server.kill();
    }
  }, 90_000);

  it('a model file onnxruntime cannot load stops start-up, naming the variable and the file', async () => {
    const { dir } = writeTinyModel();
    writeFileSync(join(dir, 'onnx', 'model.onnx'), 'not a model');
    const server = start(dir);
    expect(await server.exited()).toBe(1);
    expect(server.output()).toContain(`server: Invalid configuration:\n  EMBEDDINGS_MODEL_DIR: ${join(dir, 'onnx', 'model.onnx')}: onnxruntime cannot load it`);
  }, 90_000);
});

async function waitFor(done: () => boolean, timeoutMs: number) {
  const until = Date.now() + timeoutMs;
  while (!done() && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
}
