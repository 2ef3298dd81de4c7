/**
 * The files of a local embedding model, as a sentence-transformers export laid out by Hugging Face
 * or Optimum: tokenizer.json + tokenizer_config.json, onnx/model.onnx (or model.onnx), and, when
 * present, 1_Pooling/config.json (how token vectors become one), sentence_bert_config.json (the
 * sequence length it was trained for) and config.json (the model's name). Read once at start-up:
 * a missing or unreadable file is an error naming it.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { Pooling } from './token-batch';

export interface LocalModelFiles {
  dir: string;
  tokenizer: string;
  tokenizerConfig: string;
  onnx: string;
  /** Bytes of the ONNX file: part of the vector space's name, so replaced weights re-embed the library. */
  onnxBytes: number;
  /** From 1_Pooling/config.json; undefined when the export has none. */
  pooling?: Pooling;
  /** From sentence_bert_config.json (max_seq_length), else tokenizer_config.json (model_max_length). */
  maxTokens?: number;
  /** config.json's _name_or_path, else the directory's name. */
  name: string;
}

/** What is wrong with the directory, and which file. */
export class LocalModelDirError extends Error {
  override name = 'LocalModelDirError';
  constructor(
    readonly file: string,
    reason: string,
  ) {
    super(`${file}: ${reason}`);
  }
}

const isFile = (path: string) => existsSync(path) && statSync(path).isFile();

function readJsonObject(path: string): Record<string, unknown> {
  if (!isFile(path)) throw new LocalModelDirError(path, 'missing');
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new LocalModelDirError(path, `not valid JSON (${(error as Error).message})`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new LocalModelDirError(path, 'not a JSON object');
  return value as Record<string, unknown>;
}

/** sentence-transformers' pooling modes; only mean and CLS are supported here. */
function poolingOf(path: string, config: Record<string, unknown>): Pooling {
  const modes = Object.entries(config)
    .filter(([key, on]) => key.startsWith('pooling_mode_') && on === true)
    .map(([key]) => key.slice('pooling_mode_'.length));
  if (modes.length === 1 && modes[0] === 'mean_tokens') return 'mean';
  if (modes.length === 1 && modes[0] === 'cls_token') return 'cls';
  throw new LocalModelDirError(path, `pooling ${modes.join('+') || '(none)'} is not supported: mean_tokens or cls_token (or set EMBEDDINGS_POOLING)`);
}

const positiveInt = (value: unknown, limit: number) =>
  typeof value === 'number' && Number.isInteger(value) && value > 0 && value <= limit ? value : undefined;

/** Checks `dir` and reads its small settings files; `poolingOverride` skips 1_Pooling/config.json. */
export function locateLocalModel(dir: string, poolingOverride?: Pooling): LocalModelFiles {
  const root = resolve(dir);
  if (!existsSync(root) || !statSync(root).isDirectory()) throw new LocalModelDirError(root, 'not a directory');
  const tokenizer = join(root, 'tokenizer.json');
  const tokenizerJson = readJsonObject(tokenizer);
  if (!tokenizerJson.model || typeof tokenizerJson.model !== 'object')
    throw new LocalModelDirError(tokenizer, 'has no "model" (not a Hugging Face tokenizer.json)');
  const tokenizerConfig = join(root, 'tokenizer_config.json');
  const tokenizerSettings = readJsonObject(tokenizerConfig);
  const onnx = [join(root, 'onnx', 'model.onnx'), join(root, 'model.onnx')].find(isFile);
  if (!onnx) throw new LocalModelDirError(join(root, 'onnx', 'model.onnx'), `missing (nor ${join(root, 'model.onnx')})`);
  const onnxBytes = statSync(onnx).size;
  if (onnxBytes === 0) throw new LocalModelDirError(onnx, 'empty (a Git LFS clone without `git lfs pull`?)');

  const poolingFile = join(root, '1_Pooling', 'config.json');
  const pooling = poolingOverride ?? (isFile(poolingFile) ? poolingOf(poolingFile, readJsonObject(poolingFile)) : undefined);
  const sentenceConfig = join(root, 'sentence_bert_config.json');
  const maxTokens =
    (isFile(sentenceConfig) ? positiveInt(readJsonObject(sentenceConfig).max_seq_length, 8192) : undefined) ??
    positiveInt(tokenizerSettings.model_max_length, 8192);
  const modelConfig = join(root, 'config.json');
  const named = isFile(modelConfig) ? readJsonObject(modelConfig)._name_or_path : undefined;
  const name = typeof named === 'string' && named.trim() ? named.trim() : basename(root);
  return { dir: root, tokenizer, tokenizerConfig, onnx, onnxBytes, pooling, maxTokens, name };
}
