/**
 * Text embeddings from any OpenAI-compatible server: POST /v1/embeddings (OpenAI, LocalAI,
 * Ollama, vLLM, TEI). A dense vector is stored as the same sparse shape as the WordNet concepts
 * (one term per dimension) and found through locality-sensitive hashes: random-hyperplane sign
 * bits, cut into bands, one key per band. Vectors closer in angle share more bands, so the
 * library's GIN index finds the candidates on PostgreSQL without pgvector as well as on PGlite.
 */
import type { MeaningCalibration, MeaningVector, PromptEmbedder } from '@promptpix/core';
import { createRng } from '../procedural/prng';
import { PermanentModelError } from '../providers/errors';
import { apiRoot, requestJson, withCall, type RetryOptions } from '../providers/http';
import { openAIErrorMessage } from '../providers/openai';

export interface OpenAIEmbedderConfig {
  /** Server root, e.g. https://api.openai.com or http://localhost:11434 (Ollama); a trailing /v1 is accepted. */
  baseUrl: string;
  apiKey?: string;
  model: string;
  /** Ask for shorter vectors (`dimensions`, text-embedding-3-*); unset: the model's own length. */
  dimensions?: number;
  calibration: MeaningCalibration;
  timeoutMs?: number;
  retry?: RetryOptions;
}

/** Inputs per request: well under every server's cap. */
const BATCH = 64;
/**
 * 24 bands of 9 sign bits: two vectors at cosine 0.75 share a band with probability ~0.9,
 * unrelated ones (cosine ~0.1) ~0.08: the candidates stay a slice of the library.
 */
const BANDS = 24;
const BITS = 9;

export function createOpenAIEmbedder(config: OpenAIEmbedderConfig): PromptEmbedder {
  const root = apiRoot(config.baseUrl);
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}) };
  const callOptions = { provider: 'embeddings', timeoutMs: config.timeoutMs ?? 30_000, retry: config.retry, errorMessage: openAIErrorMessage };
  const planes = new Map<number, Float32Array>();

  async function embedBatch(texts: string[]): Promise<MeaningVector[]> {
    const body = await withCall(callOptions, undefined, (call) =>
      requestJson(call, {
        url: `${root}/v1/embeddings`,
        method: 'POST',
        headers,
        body: JSON.stringify({ model: config.model, input: texts, encoding_format: 'float', ...(config.dimensions ? { dimensions: config.dimensions } : {}) }),
      }),
    );
    const data = (body as { data?: unknown }).data;
    if (!Array.isArray(data) || data.length !== texts.length) throw new PermanentModelError(`embeddings: expected ${texts.length} embeddings, got ${Array.isArray(data) ? data.length : 'none'}`);
    const vectors: number[][] = new Array(texts.length);
    for (const item of data as Array<{ index?: unknown; embedding?: unknown }>) {
      const index = typeof item.index === 'number' ? item.index : -1;
      if (!(index >= 0 && index < texts.length) || !Array.isArray(item.embedding) || item.embedding.some((v) => typeof v !== 'number' || !Number.isFinite(v))) {
        throw new PermanentModelError('embeddings: the answer is not a list of float embeddings');
      }
      vectors[index] = item.embedding as number[];
    }
    return vectors.map((v) => denseToMeaning(v, hyperplanes(v.length)));
  }

  /** The same hyperplanes in every process: seeded by the vector length. */
  function hyperplanes(dimensions: number): Float32Array {
    let found = planes.get(dimensions);
    if (!found) {
      const rng = createRng(dimensions);
      found = Float32Array.from({ length: BANDS * BITS * dimensions }, () => rng.range(-1, 1));
      planes.set(dimensions, found);
    }
    return found;
  }

  return {
    space: `openai-compatible/${config.model}${config.dimensions ? `/${config.dimensions}` : ''}`,
    calibration: config.calibration,
    async embed(texts) {
      const out: MeaningVector[] = [];
      for (let i = 0; i < texts.length; i += BATCH) out.push(...(await embedBatch(texts.slice(i, i + BATCH))));
      return out;
    },
  };
}

/** A dense vector as a unit MeaningVector (term = dimension) with its band keys. */
export function denseToMeaning(vector: number[], planes: Float32Array): MeaningVector {
  const norm = Math.hypot(...vector) || 1;
  const weights = vector.map((v) => v / norm);
  const keys: number[] = [];
  for (let band = 0; band < BANDS; band++) {
    let code = 0;
    for (let bit = 0; bit < BITS; bit++) {
      const offset = (band * BITS + bit) * vector.length;
      let projection = 0;
      for (let d = 0; d < vector.length; d++) projection += planes[offset + d] * weights[d];
      code = (code << 1) | (projection >= 0 ? 1 : 0);
    }
    keys.push(band * (1 << BITS) + code);
  }
  return { terms: weights.map((_, d) => d), weights, keys };
}
