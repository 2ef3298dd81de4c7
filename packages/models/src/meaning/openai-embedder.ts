/**
 * Text embeddings from any OpenAI-compatible server: POST /v1/embeddings (OpenAI, LocalAI,
 * Ollama, vLLM, TEI). A dense vector is stored as the same sparse shape as the WordNet concepts
 * (one term per dimension) with locality-sensitive band keys (dense-meaning.ts).
 */
import type { MeaningCalibration, MeaningVector, PromptEmbedder } from '@promptpix/core';
import { PermanentModelError } from '../providers/errors';
import { apiRoot, requestJson, withCall, type RetryOptions } from '../providers/http';
import { openAIErrorMessage } from '../providers/openai';
import { denseToMeaning } from './dense-meaning';

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

export function createOpenAIEmbedder(config: OpenAIEmbedderConfig): PromptEmbedder {
  const root = apiRoot(config.baseUrl);
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}) };
  const callOptions = { provider: 'embeddings', timeoutMs: config.timeoutMs ?? 30_000, retry: config.retry, errorMessage: openAIErrorMessage };

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
    if (!Array.isArray(data) || data.length !== texts.length)
      throw new PermanentModelError(`embeddings: expected ${texts.length} embeddings, got ${Array.isArray(data) ? data.length : 'none'}`);
    const vectors: number[][] = new Array(texts.length);
    for (const item of data as Array<{ index?: unknown; embedding?: unknown }>) {
      const index = typeof item.index === 'number' ? item.index : -1;
      if (!(index >= 0 && index < texts.length) || !Array.isArray(item.embedding) || item.embedding.some((v) => typeof v !== 'number' || !Number.isFinite(v))) {
        throw new PermanentModelError('embeddings: the answer is not a list of float embeddings');
      }
      vectors[index] = item.embedding as number[];
    }
    return vectors.map((v) => denseToMeaning(v));
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
