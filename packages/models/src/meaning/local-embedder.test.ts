import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cosine } from '@promptpix/core';
import { removeTinyModels, writeTinyModel, type TinyModelOptions } from '@promptpix/testing/local-model';
import { createLocalEmbedder, type LocalEmbedderConfig } from './local-embedder';
import { LocalModelDirError, locateLocalModel } from './local-model-files';

const calibration = { floor: 0.2, ceiling: 0.6 };
afterAll(removeTinyModels);

function embedderFor(options: TinyModelOptions = {}, overrides: Partial<LocalEmbedderConfig> = {}) {
  const model = writeTinyModel(options);
  const files = locateLocalModel(model.dir);
  return createLocalEmbedder({ files, pooling: files.pooling ?? 'mean', maxTokens: 256, threads: 1, calibration, ...overrides });
}

describe('local embedding model adapter (real tokenizer and onnxruntime)', () => {
  it('gives prompts that share meaning a higher cosine than unrelated ones', async () => {
    const [fox, wolf, beacon, lighthouse, fruit] = await embedderFor({ poolingMode: 'mean_tokens' }).embed([
      'A red fox in the snow',
      'a wolf in a snowy forest',
      'a beacon on the shore at dusk',
      'Lighthouse, rocky coast at sunset',
      'a bowl of fresh fruit',
    ]);
    expect(cosine(fox, wolf)).toBeGreaterThan(0.7);
    expect(cosine(beacon, lighthouse)).toBeGreaterThan(0.7);
    for (const [a, b] of [
      [fox, beacon],
      [fox, fruit],
      [lighthouse, fruit],
      [wolf, lighthouse],
    ]) {
      expect(cosine(a, b)).toBeLessThan(0.3);
    }
  });

  it('a short and a long prompt in one batch get the vectors they get one at a time (padding is masked)', async () => {
    const embedder = embedderFor();
    const short = 'fox';
    const long = 'a red fox and a wolf in the snowy forest at dusk on the rocky coast';
    const [shortInBatch, longInBatch] = await embedder.embed([short, long]);
    const [shortAlone] = await embedder.embed([short]);
    const [longAlone] = await embedder.embed([long]);
    expect(shortInBatch.weights).toEqual(shortAlone.weights.map((w) => expect.closeTo(w, 6)));
    expect(longInBatch.weights).toEqual(longAlone.weights.map((w) => expect.closeTo(w, 6)));
    expect(shortInBatch.keys).toEqual(shortAlone.keys);
  });

  it('stores a unit vector with one term per dimension and 24 band keys, in the order of the texts', async () => {
    const embedder = embedderFor();
    const texts = Array.from({ length: 70 }, (_, i) => (i % 2 ? `a fox in the snow ${'and a wolf '.repeat(i % 5)}` : 'a bowl of fruit'));
    const vectors = await embedder.embed(texts);
    expect(vectors).toHaveLength(70);
    for (const v of vectors) {
      expect(v.terms).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
      expect(Math.hypot(...v.weights)).toBeCloseTo(1, 6);
      expect(v.keys).toHaveLength(24);
      expect(new Set(v.keys).size).toBe(24);
    }
    const [single] = await embedder.embed([texts[3]]);
    expect(vectors[3].weights).toEqual(single.weights.map((w) => expect.closeTo(w, 6)));
    expect(cosine(vectors[0], vectors[1])).toBeLessThan(0.3);
  });

  it('feeds only the inputs the model declares', async () => {
    const [a] = await embedderFor({ extraInputs: [] }).embed(['a fox in the snow']);
    const [b] = await embedderFor({ extraInputs: ['attention_mask', 'token_type_ids'] }).embed(['a fox in the snow']);
    expect(a.weights).toEqual(b.weights.map((w) => expect.closeTo(w, 6)));
  });

  it('a model with its own sentence_embedding output is used as it is, not pooled again', async () => {
    const texts = ['a fox in the snow', 'fox'];
    const own = await embedderFor({ pooledOutput: true }).embed(texts);
    const pooledHere = await embedderFor().embed(texts);
    // One at a time (no padding) the model's mean over all positions is our masked mean.
    const [alone] = await embedderFor({ pooledOutput: true }).embed([texts[0]]);
    expect(alone.weights).toEqual(pooledHere[0].weights.map((w) => expect.closeTo(w, 6)));
    // In a batch the model's own pooling counts the padding of the short text: proof it was not re-pooled.
    expect(cosine(own[1], pooledHere[1])).toBeLessThan(0.99);
  });

  it('CLS pooling takes the first token only: every prompt is the [CLS] vector', async () => {
    const [fox, fruit] = await embedderFor({ poolingMode: 'cls_token' }).embed(['a fox', 'a bowl of fruit']);
    expect(cosine(fox, fruit)).toBeCloseTo(1, 6);
  });

  it('cuts a prompt to maxTokens and keeps [SEP] at its end', async () => {
    const embedder = embedderFor({}, { maxTokens: 4 });
    const [cut] = await embedder.embed(['fox wolf lighthouse beacon fruit']);
    const [kept] = await embedderFor({}, { maxTokens: 4 }).embed(['fox wolf']);
    expect(cut.weights).toEqual(kept.weights.map((w) => expect.closeTo(w, 6)));
  });

  it('after close() the next embed starts the model thread again and gives the same vector', async () => {
    const embedder = embedderFor();
    const [before] = await embedder.embed(['a fox in the snow']);
    await embedder.close();
    const [after] = await embedder.embed(['a fox in the snow']);
    expect(after.weights).toEqual(before.weights);
    await embedder.close();
  });

  it('names its vector space after the model, its size, the pooling and the length', () => {
    expect(embedderFor().space).toMatch(/^local\/promptpix\/tiny-sentence-encoder\/\d+\/mean\/256$/);
  });

  it('an ONNX file onnxruntime cannot read fails ready() naming the file', async () => {
    const model = writeTinyModel();
    writeFileSync(join(model.dir, 'onnx', 'model.onnx'), 'not a model');
    const embedder = createLocalEmbedder({ files: locateLocalModel(model.dir), pooling: 'mean', maxTokens: 256, threads: 1, calibration });
    await expect(embedder.ready()).rejects.toThrow(LocalModelDirError);
    await expect(embedder.ready()).rejects.toThrow(`${join(model.dir, 'onnx', 'model.onnx')}: onnxruntime cannot load it`);
  });
});

describe('locateLocalModel', () => {
  it('finds the files and reads pooling, length and name', () => {
    const { dir } = writeTinyModel({ poolingMode: 'cls_token' });
    expect(locateLocalModel(dir)).toMatchObject({
      dir,
      onnx: join(dir, 'onnx', 'model.onnx'),
      pooling: 'cls',
      maxTokens: 512,
      name: 'promptpix/tiny-sentence-encoder',
    });
    expect(locateLocalModel(dir, 'mean').pooling).toBe('mean');
  });

  it.each([
    { omit: ['tokenizer.json'], file: 'tokenizer.json', reason: 'missing' },
    { omit: ['tokenizer_config.json'], file: 'tokenizer_config.json', reason: 'missing' },
    { omit: ['onnx/model.onnx'], file: 'onnx/model.onnx', reason: 'missing' },
  ])('$file missing: an error naming it', ({ omit, file, reason }) => {
    const { dir } = writeTinyModel({ omit });
    expect(() => locateLocalModel(dir)).toThrow(LocalModelDirError);
    expect(() => locateLocalModel(dir)).toThrow(`${join(dir, file)}: ${reason}`);
  });

  it('an unsupported pooling mode names the file and the override', () => {
    const { dir } = writeTinyModel({ poolingMode: 'max_tokens' });
    expect(() => locateLocalModel(dir)).toThrow(`${join(dir, '1_Pooling', 'config.json')}: pooling max_tokens is not supported`);
    expect(locateLocalModel(dir, 'mean').pooling).toBe('mean');
  });

  it('a broken tokenizer.json, an empty model file or a missing directory is named', () => {
    const broken = writeTinyModel();
    writeFileSync(join(broken.dir, 'tokenizer.json'), '{"version": ');
    expect(() => locateLocalModel(broken.dir)).toThrow(`${join(broken.dir, 'tokenizer.json')}: not valid JSON`);
    const empty = writeTinyModel();
    writeFileSync(join(empty.dir, 'onnx', 'model.onnx'), '');
    expect(() => locateLocalModel(empty.dir)).toThrow(`${join(empty.dir, 'onnx', 'model.onnx')}: empty`);
    expect(() => locateLocalModel(join(empty.dir, 'nope'))).toThrow(`${join(empty.dir, 'nope')}: not a directory`);
  });

  it('model.onnx at the top of the directory is accepted', () => {
    const { dir } = writeTinyModel();
    const bytes = readFileSync(join(dir, 'onnx', 'model.onnx'));
    rmSync(join(dir, 'onnx'), { recursive: true });
    writeFileSync(join(dir, 'model.onnx'), bytes);
    expect(locateLocalModel(dir).onnx).toBe(join(dir, 'model.onnx'));
  });
});
