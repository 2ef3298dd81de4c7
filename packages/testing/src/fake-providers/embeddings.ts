/**
 * A fake OpenAI-compatible embeddings server (OpenAI, LocalAI, Ollama, vLLM and TEI speak this):
 * POST /v1/embeddings `{ model, input: string | string[], encoding_format?, dimensions? }` answers
 * `{ object: "list", data: [{ object: "embedding", index, embedding }], model, usage }`, errors as
 * `{ error: { message, type, param, code } }`. Its vectors hash each word into a few dimensions, so
 * texts that share words are close and others are not: enough to test matching through it.
 */
import { createHash } from 'node:crypto';
import { openAIError } from './openai';
import { sendJson, startFakeProvider, type FakeBehaviour, type FakeProviderServer } from './server';

export interface FakeEmbeddingsOptions {
  apiKey?: string;
  /** Length of every vector unless the request asks for fewer `dimensions`. Default 64. */
  dimensions?: number;
  /** Most inputs in one request; more is a 400, as real servers cap batches. Default 2048. */
  maxInputs?: number;
}

export type FakeEmbeddingsBehaviour = FakeBehaviour;

export function fakeEmbedding(text: string, dimensions: number): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  for (const word of text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 2)) {
    const hash = createHash('sha256').update(word).digest();
    for (let i = 0; i < 3; i++) vector[hash.readUInt16BE(i * 2) % dimensions] += hash[8 + i] & 1 ? 1 : -1;
  }
  const norm = Math.hypot(...vector) || 1;
  return vector.map((v) => v / norm);
}

export function startFakeEmbeddings(options: FakeEmbeddingsOptions = {}): Promise<FakeProviderServer<FakeEmbeddingsBehaviour>> {
  const maxInputs = options.maxInputs ?? 2048;
  return startFakeProvider<FakeEmbeddingsBehaviour>({
    defaults: {},
    isApi: (r) => r.path.startsWith('/v1/'),
    errorBody: (status, message) => openAIError(status, message),
    async route(request, response) {
      if (request.method !== 'POST' || request.path !== '/v1/embeddings')
        return sendJson(response, 404, openAIError(404, `Invalid URL (${request.method} ${request.path})`));
      if (options.apiKey && request.headers.authorization !== `Bearer ${options.apiKey}`) return sendJson(response, 401, openAIError(401));
      const body = request.json as { model?: unknown; input?: unknown; dimensions?: unknown; encoding_format?: unknown } | undefined;
      if (!body || typeof body !== 'object') return sendJson(response, 400, openAIError(400, 'We could not parse the JSON body of your request.'));
      if (typeof body.model !== 'string' || !body.model) return sendJson(response, 400, openAIError(400, "Missing required parameter: 'model'.", 'model'));
      const inputs = typeof body.input === 'string' ? [body.input] : body.input;
      if (!Array.isArray(inputs) || inputs.length === 0 || inputs.some((i) => typeof i !== 'string' || i === '')) {
        return sendJson(response, 400, openAIError(400, "'input' must be a non-empty string or array of non-empty strings.", 'input'));
      }
      if (inputs.length > maxInputs) return sendJson(response, 400, openAIError(400, `'input' holds at most ${maxInputs} items.`, 'input'));
      if (body.encoding_format !== undefined && body.encoding_format !== 'float')
        return sendJson(response, 400, openAIError(400, 'Only float encoding is served here.', 'encoding_format'));
      const dimensions = typeof body.dimensions === 'number' ? body.dimensions : (options.dimensions ?? 64);
      const tokens = inputs.reduce((sum: number, i: string) => sum + i.split(/\s+/).length, 0);
      sendJson(response, 200, {
        object: 'list',
        data: inputs.map((input: string, index: number) => ({ object: 'embedding', index, embedding: fakeEmbedding(input, dimensions) })),
        model: body.model,
        usage: { prompt_tokens: tokens, total_tokens: tokens },
      });
    },
  });
}
