/**
 * MODELS_FILE (docs/operating/models.md): several models, each a backend and its settings, read
 * once at start-up and validated with zod; an error names the path of the bad field. Strings may
 * hold `${ENV_NAME}` references (a Kubernetes Secret mounted as environment variables beside a
 * ConfigMap file), resolved here and never echoed in an error or a log.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { BackendLimitSettings, ModelConfig, ModelEntry } from '@promptpix/models';

const MODEL_ID = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,99}$/;
const SIZE = /^[1-9]\d{1,4}x[1-9]\d{1,4}$/;

const httpUrl = z.string().refine((v) => {
  try {
    return ['http:', 'https:'].includes(new URL(v).protocol);
  } catch {
    return false;
  }
}, 'must be a URL starting with http:// or https://');

/** What every backend accepts besides its own settings. */
const shared = {
  backend: z.string(),
  sizes: z.array(z.string().regex(SIZE, 'must be WxH, e.g. 1024x1024')).min(1).max(32).optional(),
  fallback: z.string().regex(MODEL_ID, 'must be a model id').optional(),
  timeoutMs: z.number().int().min(1000).max(3_600_000).optional(),
  httpAttempts: z.number().int().min(1).max(10).optional(),
  /** A call in flight longer than this counts as bad for the breaker (default: half the timeout). */
  slowCallMs: z.number().int().min(100).max(3_600_000).optional(),
  /** Calls in flight to this model from every worker together; 0: no limit. */
  maxInFlight: z.number().int().min(0).max(10_000).optional(),
  /** Calls in flight to this model from one worker. */
  maxInFlightPerWorker: z.number().int().min(1).max(256).optional(),
};

interface Defaults {
  timeoutMs?: number;
  httpAttempts: number;
  /** MODEL_SLOW_CALL_MS, MODEL_MAX_IN_FLIGHT, MODEL_MAX_IN_FLIGHT_PER_WORKER where set. */
  limits?: BackendLimitSettings;
}

const common = (e: { timeoutMs?: number; httpAttempts?: number }, d: Defaults) => ({
  timeoutMs: e.timeoutMs ?? d.timeoutMs,
  retry: { attempts: e.httpAttempts ?? d.httpAttempts },
});

/** One backend's entry: `toConfig` takes exactly what its schema parsed (typed from the schema). */
const backendEntry = <S extends z.ZodType>(entry: { schema: S; toConfig: (parsed: z.output<S>, defaults: Defaults) => ModelConfig }) => entry;

/**
 * The backends a model entry may name: its settings' schema and how they become the adapter's
 * configuration. A new backend is one entry here and one case in createModel.
 */
const BACKENDS = {
  procedural: backendEntry({
    schema: z.strictObject({ ...shared, backend: z.literal('procedural'), latencyMs: z.number().int().min(0).max(600_000).optional() }),
    toConfig: (e) => ({ provider: 'procedural', latencyMs: e.latencyMs }),
  }),
  openai: backendEntry({
    schema: z.strictObject({
      ...shared,
      backend: z.literal('openai'),
      baseUrl: httpUrl.optional(),
      apiKey: z.string().optional(),
      model: z.string().min(1).default('gpt-image-1'),
      quality: z.string().optional(),
      arbitrarySizes: z.boolean().optional(),
    }),
    toConfig: (e, d) => ({
      provider: 'openai',
      ...common(e, d),
      baseUrl: e.baseUrl,
      apiKey: e.apiKey || undefined,
      model: e.model,
      quality: e.quality,
      arbitrarySizes: e.arbitrarySizes ?? false,
    }),
  }),
  replicate: backendEntry({
    schema: z.strictObject({
      ...shared,
      backend: z.literal('replicate'),
      baseUrl: httpUrl.optional(),
      apiToken: z.string().min(1),
      version: z.string().min(1),
      input: z.record(z.string(), z.unknown()).optional(),
      sizeInput: z.enum(['dimensions', 'aspect_ratio']).optional(),
      pollIntervalMs: z.number().int().min(100).max(60_000).optional(),
    }),
    toConfig: (e, d) => ({
      provider: 'replicate',
      ...common(e, d),
      baseUrl: e.baseUrl,
      apiToken: e.apiToken,
      version: e.version,
      input: e.input,
      sizeInput: e.sizeInput,
      pollIntervalMs: e.pollIntervalMs,
    }),
  }),
  a1111: backendEntry({
    schema: z
      .strictObject({
        ...shared,
        backend: z.literal('a1111'),
        baseUrl: httpUrl.optional(),
        username: z.string().min(1).optional(),
        password: z.string().min(1).optional(),
        steps: z.number().int().min(1).max(200).optional(),
        samplerName: z.string().optional(),
        cfgScale: z.number().min(0).max(50).optional(),
        negativePrompt: z.string().optional(),
        checkpoint: z.string().optional(),
        maxSide: z.number().int().min(256).max(4096).optional(),
        denoisingStrength: z.number().min(0).max(1).optional(),
      })
      .refine((e) => !!e.username === !!e.password, { error: 'set both username and password or neither', path: ['password'] }),
    toConfig: (e, d) => ({
      provider: 'a1111',
      ...common(e, d),
      baseUrl: e.baseUrl,
      username: e.username,
      password: e.password,
      steps: e.steps,
      samplerName: e.samplerName,
      cfgScale: e.cfgScale,
      negativePrompt: e.negativePrompt,
      checkpoint: e.checkpoint,
      maxSide: e.maxSide,
      denoisingStrength: e.denoisingStrength,
    }),
  }),
  comfyui: backendEntry({
    schema: z
      .strictObject({
        ...shared,
        backend: z.literal('comfyui'),
        baseUrl: httpUrl.optional(),
        /** The API-format workflow itself, or `workflowFile`: a path to it. */
        workflow: z.record(z.string(), z.unknown()).optional(),
        workflowFile: z.string().min(1).optional(),
        nodes: z.record(z.string(), z.string()).optional(),
        steps: z.number().int().min(1).max(200).optional(),
        maxSide: z.number().int().min(64).max(8192).optional(),
        pollIntervalMs: z.number().int().min(50).max(60_000).optional(),
      })
      .refine((e) => (e.workflow === undefined) !== (e.workflowFile === undefined), {
        error: 'set exactly one of workflow and workflowFile',
        path: ['workflow'],
      }),
    toConfig: (e, d) => ({
      provider: 'comfyui',
      ...common(e, d),
      baseUrl: e.baseUrl,
      workflow: e.workflow ?? readWorkflowFile(e.workflowFile as string),
      nodes: e.nodes,
      steps: e.steps,
      maxSide: e.maxSide,
      pollIntervalMs: e.pollIntervalMs,
    }),
  }),
} as const;

/** A comfyui entry's `workflowFile`: its parsed JSON, or an error saying why not (never its content). */
function readWorkflowFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ModelsFileError(`workflowFile: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new ModelsFileError(`workflowFile: ${path} is not JSON`);
  }
}

export type BackendName = keyof typeof BACKENDS;
const backendNames = Object.keys(BACKENDS) as BackendName[];

const entrySchema = z.looseObject({ backend: z.enum(backendNames, { error: `must be one of ${backendNames.join(', ')}` }) });

const fileSchema = z.strictObject({
  default: z.string().regex(MODEL_ID, 'must be a model id'),
  models: z
    .record(z.string().regex(MODEL_ID, 'a model id: letters, digits and . _ : / -, up to 100 characters'), z.unknown())
    .refine((m) => Object.keys(m).length > 0, 'must name at least one model'),
});

export class ModelsFileError extends Error {
  override name = 'ModelsFileError';
}

const pathText = (path: readonly PropertyKey[]) => path.map(String).join('.');

/** Replaces `${NAME}` in every string; a reference to an unset variable is an error naming the field and the variable. */
export function resolveEnvReferences(value: unknown, env: NodeJS.ProcessEnv, path: string[] = []): unknown {
  if (typeof value === 'string') {
    return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_match, name: string) => {
      const found = env[name];
      if (found === undefined) throw new ModelsFileError(`${pathText(path)}: refers to \${${name}}, which is not set`);
      return found;
    });
  }
  if (Array.isArray(value)) return value.map((v, i) => resolveEnvReferences(v, env, [...path, String(i)]));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveEnvReferences(v, env, [...path, k])]));
  return value;
}

export interface ModelsFile {
  defaultId: string;
  entries: ModelEntry[];
}

/**
 * A models file's parsed JSON → the registry's entries. Throws ModelsFileError with one line per
 * bad field (`models.gpu.baseUrl: must be a URL ...`); the messages never hold a value from the file.
 */
export function parseModelsFile(json: unknown, env: NodeJS.ProcessEnv, defaults: Defaults): ModelsFile {
  const top = fileSchema.safeParse(json);
  if (!top.success) throw new ModelsFileError(top.error.issues.map((i) => `${pathText(i.path) || '(file)'}: ${i.message}`).join('\n'));
  const problems: string[] = [];
  const entries: ModelEntry[] = [];
  for (const [id, raw] of Object.entries(top.data.models)) {
    const at = ['models', id];
    let resolved: unknown;
    try {
      resolved = resolveEnvReferences(raw, env, at);
    } catch (error) {
      problems.push((error as Error).message);
      continue;
    }
    const kind = entrySchema.safeParse(resolved);
    if (!kind.success) {
      problems.push(...kind.error.issues.map((i) => `${pathText([...at, ...i.path])}: ${i.message}`));
      continue;
    }
    const backend = BACKENDS[kind.data.backend];
    const parsed = backend.schema.safeParse(resolved);
    if (!parsed.success) {
      // zod's own messages name the expected type, never the value received.
      problems.push(...parsed.error.issues.map((i) => `${pathText([...at, ...i.path])}: ${i.message}`));
      continue;
    }
    const e = parsed.data as { sizes?: string[]; fallback?: string; slowCallMs?: number; maxInFlight?: number; maxInFlightPerWorker?: number };
    // Each backend's toConfig takes what its own schema parsed.
    const toConfig = backend.toConfig as (parsed: unknown, defaults: Defaults) => ModelConfig;
    let config: ModelConfig;
    try {
      config = toConfig(parsed.data, defaults);
    } catch (error) {
      if (!(error instanceof ModelsFileError)) throw error;
      problems.push(`${pathText(at)}.${error.message}`);
      continue;
    }
    const own = Object.fromEntries(
      Object.entries({ slowCallMs: e.slowCallMs, maxInFlight: e.maxInFlight, maxInFlightPerWorker: e.maxInFlightPerWorker }).filter(([, v]) => v !== undefined),
    );
    const limits: BackendLimitSettings = { ...defaults.limits, ...own };
    entries.push({
      id,
      config,
      ...(e.sizes && { sizes: e.sizes }),
      ...(e.fallback && { fallback: e.fallback }),
      ...(Object.keys(limits).length > 0 && { limits }),
    });
  }
  const ids = new Set(Object.keys(top.data.models));
  if (!ids.has(top.data.default)) problems.push(`default: "${top.data.default}" is not one of the models`);
  for (const entry of entries) {
    if (entry.fallback === undefined) continue;
    if (entry.fallback === entry.id) problems.push(`models.${entry.id}.fallback: must name another model`);
    else if (!ids.has(entry.fallback)) problems.push(`models.${entry.id}.fallback: "${entry.fallback}" is not one of the models`);
  }
  if (problems.length > 0) throw new ModelsFileError(problems.join('\n'));
  return { defaultId: top.data.default, entries };
}
