/**
 * Text embeddings from a local model run in-process: a sentence-transformers ONNX export in a
 * directory the operator provides (local-model-files.ts), tokenized by @huggingface/tokenizers on
 * the calling thread and run by onnxruntime-node on the CPU on a thread of its own
 * (onnx-thread.ts): onnxruntime-node's `run` computes synchronously on the thread that calls it,
 * so on the event loop a batch would stall every request. Nothing is downloaded, and nothing of
 * onnxruntime is loaded unless this adapter is chosen.
 */
import type { MeaningCalibration, MeaningVector, PromptEmbedder } from '@promptpix/core';
import { readFileSync } from 'node:fs';
import { denseToMeaning } from './dense-meaning';
import { LocalModelDirError, type LocalModelFiles } from './local-model-files';
import { startOnnxThread, type OnnxFeed, type OnnxThread } from './onnx-thread';
import { padBatch, poolTokens, truncateIds, type Pooling } from './token-batch';

export interface LocalEmbedderConfig {
  files: LocalModelFiles;
  pooling: Pooling;
  maxTokens: number;
  /** onnxruntime intra-op threads per run (on top of the model's own thread). */
  threads: number;
  calibration: MeaningCalibration;
}

/** Texts per run: long enough to amortise a call, short enough that padding stays small. */
const BATCH = 32;
/** Per-token outputs, pooled here; `sentence_embedding` is an export's own pooled output. */
const TOKEN_OUTPUTS = ['last_hidden_state', 'token_embeddings'];
const POOLED_OUTPUT = 'sentence_embedding';
const INPUTS = new Set(['input_ids', 'attention_mask', 'token_type_ids']);

interface Tokenizer {
  encode(text: string): { ids: number[] };
  get_added_tokens_decoder(): Map<number, { special?: boolean }>;
  token_to_id(token: string): number | undefined;
}

interface Loaded {
  thread: OnnxThread;
  tokenizer: Tokenizer;
  specialIds: Set<number>;
  padId: number;
  output: string;
}

async function loadTokenizer(files: LocalModelFiles) {
  const { Tokenizer } = await import('@huggingface/tokenizers');
  try {
    const settings = JSON.parse(readFileSync(files.tokenizerConfig, 'utf8')) as { pad_token?: unknown };
    const tokenizer = new Tokenizer(JSON.parse(readFileSync(files.tokenizer, 'utf8')), settings) as unknown as Tokenizer;
    tokenizer.encode('a');
    const padToken = typeof settings.pad_token === 'string' ? settings.pad_token : (settings.pad_token as { content?: unknown } | undefined)?.content;
    const specialIds = new Set([...tokenizer.get_added_tokens_decoder()].filter(([, token]) => token.special).map(([id]) => id));
    const padId = (typeof padToken === 'string' ? tokenizer.token_to_id(padToken) : undefined) ?? 0;
    return { tokenizer, specialIds, padId };
  } catch (error) {
    throw new LocalModelDirError(files.tokenizer, `the tokenizer does not load (${(error as Error).message})`);
  }
}

/** The tokenizer and the model thread; every error names the file (start-up stops on it, naming EMBEDDINGS_MODEL_DIR). */
async function load(config: LocalEmbedderConfig): Promise<Loaded> {
  const { files } = config;
  const tokenizer = await loadTokenizer(files);
  let thread: OnnxThread;
  try {
    thread = await startOnnxThread(files.onnx, config.threads);
  } catch (error) {
    throw new LocalModelDirError(files.onnx, `onnxruntime cannot load it (${(error as Error).message})`);
  }
  const names = thread.inputs.map((i) => i.name);
  const unusable = thread.inputs.filter((i) => !INPUTS.has(i.name) || (i.type !== 'int64' && i.type !== 'int32'));
  if (!names.includes('input_ids') || unusable.length) {
    await thread.close();
    throw new LocalModelDirError(
      files.onnx,
      `inputs ${thread.inputs.map((i) => `${i.name} (${i.type})`).join(', ')}: expected input_ids and optionally attention_mask, token_type_ids, as int64 or int32`,
    );
  }
  const output = [POOLED_OUTPUT, ...TOKEN_OUTPUTS].find((name) => thread.outputs.includes(name)) ?? thread.outputs[0];
  return { ...tokenizer, thread, output };
}

async function encodeBatch(loaded: Loaded, config: LocalEmbedderConfig, rows: number[][]): Promise<Float32Array[]> {
  const batch = padBatch(rows, loaded.padId);
  const dims = [batch.batch, batch.sequence];
  const values: Record<string, BigInt64Array> = { input_ids: batch.inputIds, attention_mask: batch.attentionMask, token_type_ids: batch.tokenTypeIds };
  const feeds: Record<string, OnnxFeed> = {};
  for (const { name, type } of loaded.thread.inputs) {
    feeds[name] = type === 'int32' ? { type, data: Int32Array.from(values[name], Number), dims } : { type: 'int64', data: values[name], dims };
  }
  const out = await loaded.thread.run(feeds, loaded.output);
  if (!out.data) throw new Error(`local embedding model: output ${loaded.output} is ${out.type}, expected float32`);
  if (out.dims.length === 2 && out.dims[0] === batch.batch) {
    const dim = out.dims[1];
    return rows.map((_, b) => out.data!.subarray(b * dim, (b + 1) * dim));
  }
  if (out.dims.length === 3 && out.dims[0] === batch.batch && out.dims[1] === batch.sequence) {
    return poolTokens(out.data, batch.attentionMask, { batch: batch.batch, sequence: batch.sequence, dim: out.dims[2] }, config.pooling);
  }
  throw new Error(`local embedding model: output ${loaded.output} has shape [${out.dims.join(', ')}], expected [batch, sequence, dim] or [batch, dim]`);
}

export interface LocalEmbedder extends PromptEmbedder {
  /** Loads the tokenizer and starts the model's thread; rejects with why the model cannot run. */
  ready(): Promise<void>;
  /** Stops the model's thread (a later embed starts it again). */
  close(): Promise<void>;
}

export function createLocalEmbedder(config: LocalEmbedderConfig): LocalEmbedder {
  let loading: Promise<Loaded> | undefined;
  let current: Loaded | undefined;
  const loaded = () => {
    // A failed load, or a thread that has stopped, is started again by the next call.
    if (current && !current.thread.alive()) loading = current = undefined;
    if (!loading) {
      const attempt = load(config);
      attempt.then(
        (model) => (current = model),
        () => {
          if (loading === attempt) loading = undefined;
        },
      );
      loading = attempt;
    }
    return loading;
  };

  return {
    space: `local/${config.files.name}/${config.files.onnxBytes}/${config.pooling}/${config.maxTokens}`,
    calibration: config.calibration,
    async ready() {
      await loaded();
    },
    async close() {
      const closing = loading;
      loading = current = undefined;
      await (await closing?.catch(() => undefined))?.thread.close();
    },
    async embed(texts) {
      const model = await loaded();
      const rows = texts.map((text) => {
        const { ids } = model.tokenizer.encode(text);
        return truncateIds(ids, config.maxTokens, ids.length > 0 && model.specialIds.has(ids[ids.length - 1]));
      });
      // Similar lengths batched together: less padding to compute.
      const order = rows.map((_, i) => i).sort((a, b) => rows[a].length - rows[b].length);
      const vectors: MeaningVector[] = new Array(texts.length);
      for (let i = 0; i < order.length; i += BATCH) {
        const slice = order.slice(i, i + BATCH);
        const pooled = await encodeBatch(
          model,
          config,
          slice.map((index) => rows[index]),
        );
        slice.forEach((index, j) => {
          vectors[index] = denseToMeaning(pooled[j]);
        });
      }
      return vectors;
    },
  };
}
