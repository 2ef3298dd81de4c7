/**
 * A tiny local embedding model on disk, laid out like a sentence-transformers ONNX export
 * (tokenizer.json, tokenizer_config.json, config.json, onnx/model.onnx, 1_Pooling/config.json), for
 * tests of the local adapter with the real tokenizer and onnxruntime. The tokenizer is a BERT-style
 * WordPiece over a few dozen words ([CLS] … [SEP], lower-cased); the graph is
 * last_hidden_state = Gather(words, input_ids) + Gather(types, token_type_ids), so a prompt's vector
 * is the mean of its words' vectors over the attention mask. Words of one topic point along the
 * same axis (synonyms are close); [PAD] is a large vector of its own, so a pooling that counted the
 * padding would move the vector.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onnx } from 'onnx-proto';

/** Topic → words; each topic is one axis of the embedding. */
export const TINY_MODEL_TOPICS: Record<string, string[]> = {
  animal: ['fox', 'wolf', 'dog', 'red', 'snowy', 'snow', 'forest'],
  sea: ['lighthouse', 'beacon', 'rocky', 'coast', 'shore', 'sunset', 'dusk'],
  food: ['bowl', 'fresh', 'fruit', 'apple', 'wooden', 'table'],
  office: ['quarterly', 'tax', 'spreadsheet', 'invoice'],
};
const STOP_WORDS = ['a', 'an', 'in', 'on', 'at', 'of', 'the', 'and'];
const SPECIAL = ['[PAD]', '[UNK]', '[CLS]', '[SEP]'];
const DIM = 8;

export interface TinyModelOptions {
  /** 1_Pooling/config.json's mode (`mean_tokens`, `cls_token`, `max_tokens`); none: no such file. */
  poolingMode?: string;
  /** Graph inputs besides input_ids; default both. */
  extraInputs?: Array<'attention_mask' | 'token_type_ids'>;
  /** Files not to write, e.g. 'tokenizer.json' or 'onnx/model.onnx'. */
  omit?: string[];
  /** Also output `sentence_embedding` [batch, dim] (the mean over every position, as an export with its own pooling does). */
  pooledOutput?: boolean;
}

export interface TinyModel {
  dir: string;
  dim: number;
  vocab: Record<string, number>;
}

/** A deterministic small number in [-1, 1) per (word, dimension). */
const jitter = (word: string, d: number) => {
  let h = 2166136261;
  for (const c of `${word}/${d}`) h = Math.imul(h ^ c.charCodeAt(0), 16777619);
  return ((h >>> 0) % 2000) / 1000 - 1;
};

function wordVectors(vocab: Record<string, number>): Float32Array {
  const rows = Object.keys(vocab).length;
  const data = new Float32Array(rows * DIM);
  const topics = Object.keys(TINY_MODEL_TOPICS);
  for (const [word, id] of Object.entries(vocab)) {
    const topic = topics.findIndex((t) => TINY_MODEL_TOPICS[t].includes(word));
    for (let d = 0; d < DIM; d++) {
      let value = 0.05 * jitter(word, d);
      if (topic >= 0) value = (d === topic ? 1 : 0) + 0.15 * jitter(word, d);
      if (word === '[PAD]') value = d === DIM - 1 ? 5 : 0;
      data[id * DIM + d] = value;
    }
  }
  return data;
}

const tensorType = (elemType: number, dims: Array<string | number>): onnx.ITypeProto => ({
  tensorType: { elemType, shape: { dim: dims.map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d })) } },
});

function graphBytes(vocab: Record<string, number>, extraInputs: Array<'attention_mask' | 'token_type_ids'>, pooledOutput: boolean): Uint8Array {
  const words = wordVectors(vocab);
  const types = new Float32Array(2 * DIM).fill(0);
  for (let d = 0; d < DIM; d++) types[DIM + d] = 3; // token type 1 (never sent) would move every vector
  const hasTypes = extraInputs.includes('token_type_ids');
  const model: onnx.IModelProto = {
    irVersion: 8,
    producerName: 'promptpix-testing',
    opsetImport: [{ domain: '', version: 13 }],
    graph: {
      name: 'tiny-sentence-encoder',
      initializer: [
        { name: 'words', dims: [Object.keys(vocab).length, DIM], dataType: onnx.TensorProto.DataType.FLOAT, rawData: new Uint8Array(words.buffer) },
        ...(hasTypes ? [{ name: 'types', dims: [2, DIM], dataType: onnx.TensorProto.DataType.FLOAT, rawData: new Uint8Array(types.buffer) }] : []),
      ],
      node: (
        (hasTypes
          ? [
              {
                opType: 'Gather',
                input: ['words', 'input_ids'],
                output: ['word_part'],
                attribute: [{ name: 'axis', type: onnx.AttributeProto.AttributeType.INT, i: 0 }],
              },
              {
                opType: 'Gather',
                input: ['types', 'token_type_ids'],
                output: ['type_part'],
                attribute: [{ name: 'axis', type: onnx.AttributeProto.AttributeType.INT, i: 0 }],
              },
              { opType: 'Add', input: ['word_part', 'type_part'], output: ['last_hidden_state'] },
            ]
          : [
              {
                opType: 'Gather',
                input: ['words', 'input_ids'],
                output: ['last_hidden_state'],
                attribute: [{ name: 'axis', type: onnx.AttributeProto.AttributeType.INT, i: 0 }],
              },
            ]) as onnx.INodeProto[]
      ).concat(
        pooledOutput
          ? [
              {
                opType: 'ReduceMean',
                input: ['last_hidden_state'],
                output: ['sentence_embedding'],
                attribute: [
                  { name: 'axes', type: onnx.AttributeProto.AttributeType.INTS, ints: [1] },
                  { name: 'keepdims', type: onnx.AttributeProto.AttributeType.INT, i: 0 },
                ],
              },
            ]
          : [],
      ),
      input: ['input_ids', ...extraInputs].map((name) => ({ name, type: tensorType(onnx.TensorProto.DataType.INT64, ['batch', 'sequence']) })),
      output: [
        { name: 'last_hidden_state', type: tensorType(onnx.TensorProto.DataType.FLOAT, ['batch', 'sequence', DIM]) },
        ...(pooledOutput ? [{ name: 'sentence_embedding', type: tensorType(onnx.TensorProto.DataType.FLOAT, ['batch', DIM]) }] : []),
      ],
    },
  };
  return onnx.ModelProto.encode(model).finish();
}

function tokenizerJson(vocab: Record<string, number>) {
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIAL.map((content) => ({
      id: vocab[content],
      content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    })),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }],
      pair: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 1 } },
        { SpecialToken: { id: '[SEP]', type_id: 1 } },
      ],
      special_tokens: {
        '[CLS]': { id: '[CLS]', ids: [vocab['[CLS]']], tokens: ['[CLS]'] },
        '[SEP]': { id: '[SEP]', ids: [vocab['[SEP]']], tokens: ['[SEP]'] },
      },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab },
  };
}

const written: string[] = [];

/** Deletes the directories writeTinyModel made (call in afterAll). */
export function removeTinyModels(): void {
  for (const dir of written.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** Writes the tiny model into a new temporary directory. */
export function writeTinyModel(options: TinyModelOptions = {}): TinyModel {
  const words = [...SPECIAL, ...STOP_WORDS, ...Object.values(TINY_MODEL_TOPICS).flat(), ','];
  const vocab = Object.fromEntries(words.map((w, i) => [w, i]));
  const dir = mkdtempSync(join(tmpdir(), 'promptpix-tiny-model-'));
  written.push(dir);
  const omit = new Set(options.omit ?? []);
  const write = (file: string, content: string | Uint8Array) => {
    if (omit.has(file)) return;
    mkdirSync(join(dir, file, '..'), { recursive: true });
    writeFileSync(join(dir, file), content);
  };
  write('tokenizer.json', JSON.stringify(tokenizerJson(vocab)));
  write(
    'tokenizer_config.json',
    JSON.stringify({
      tokenizer_class: 'BertTokenizer',
      do_lower_case: true,
      model_max_length: 512,
      pad_token: '[PAD]',
      cls_token: '[CLS]',
      sep_token: '[SEP]',
      unk_token: '[UNK]',
    }),
  );
  write('config.json', JSON.stringify({ _name_or_path: 'promptpix/tiny-sentence-encoder', model_type: 'bert', hidden_size: DIM }));
  write('onnx/model.onnx', graphBytes(vocab, options.extraInputs ?? ['attention_mask', 'token_type_ids'], options.pooledOutput ?? false));
  if (options.poolingMode) {
    const modes = ['cls_token', 'mean_tokens', 'max_tokens', 'mean_sqrt_len_tokens', 'weightedmean_tokens', 'lasttoken'];
    write(
      '1_Pooling/config.json',
      JSON.stringify({ word_embedding_dimension: DIM, ...Object.fromEntries(modes.map((m) => [`pooling_mode_${m}`, m === options.poolingMode])) }),
    );
  }
  return { dir, dim: DIM, vocab };
}
