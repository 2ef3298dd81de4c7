/**
 * The service's configuration: read from the environment once, at start-up, validated with zod.
 * A bad or missing variable fails start-up with a message naming it. Adapters get plain objects.
 * Every variable is documented in the README's configuration table.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import {
  DEFAULT_ACTIVE_JOBS_PER_KEY,
  DEFAULT_MONTHLY_GENERATIONS,
  DEFAULT_PUBLISHABLE_BUDGET,
  DEFAULT_WEBHOOK_ATTEMPTS,
  DEFAULT_WEBHOOK_BACKOFF_MS,
  MAX_BUDGET,
  parseTermList,
  type PlanName,
  type PublishableBudget,
} from '@promptpix/core';
import { DEFAULT_BREAKER_POLICY, type BreakerPolicy } from '@promptpix/core';
import type { BackendLimitSettings, EmbedderConfig, ModelConfig, ModelEntry } from '@promptpix/models';
import { LocalModelDirError, locateLocalModel, type LocalModelFiles } from '@promptpix/models';
import { ModelsFileError, parseModelsFile } from './models-file';
import { DEFAULT_HTTP_LIMITS, type HttpLimits } from '../process/http-server';

const optionalString = z.preprocess((v) => (v === '' ? undefined : v), z.string().optional());
const int = (fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER) =>
  z.preprocess((v) => (v === '' || v === undefined ? fallback : Number(v)), z.number().int().min(min).max(max));
const optionalInt = (min: number, max: number) =>
  z.preprocess((v) => (v === '' || v === undefined ? undefined : Number(v)), z.number().int().min(min).max(max).optional());
const url = (protocols: string[]) =>
  z.preprocess(
    (v) => (v === '' ? undefined : v),
    z
      .string()
      .refine(
        (v) => {
          try {
            return protocols.includes(new URL(v).protocol);
          } catch {
            return false;
          }
        },
        `must be a URL starting with ${protocols.map((p) => `${p}//`).join(' or ')}`,
      )
      .optional(),
  );

const envSchema = z.object({
  NODE_ENV: optionalString,
  PORT: int(3000, 0, 65535),
  DATA_DIR: z.preprocess((v) => (v === '' || v === undefined ? './data' : v), z.string()),
  ADMIN_TOKEN: z.preprocess((v) => (v === '' ? undefined : v), z.string().min(16, 'must be at least 16 characters').optional()),
  PUBLIC_BASE_URL: url(['http:', 'https:']),
  DATABASE_URL: url(['postgres:', 'postgresql:']),
  DATABASE_POOL_SIZE: int(10, 1, 200),
  REDIS_URL: url(['redis:', 'rediss:']),
  REDIS_PREFIX: z.preprocess((v) => (v === '' || v === undefined ? 'promptpix' : v), z.string().regex(/^[A-Za-z0-9:_-]+$/, 'letters, digits, : _ - only')),
  S3_BUCKET: optionalString,
  S3_ENDPOINT: url(['http:', 'https:']),
  S3_REGION: z.preprocess((v) => (v === '' || v === undefined ? 'us-east-1' : v), z.string()),
  S3_ACCESS_KEY_ID: optionalString,
  S3_SECRET_ACCESS_KEY: optionalString,
  S3_PUBLIC_BASE_URL: url(['http:', 'https:']),
  S3_FORCE_PATH_STYLE: z.preprocess((v) => (v === '' || v === undefined ? undefined : v), z.enum(['true', 'false']).optional()),
  MODEL_PROVIDER: z.preprocess((v) => (v === '' || v === undefined ? 'procedural' : v), z.enum(['procedural', 'openai', 'replicate', 'a1111', 'comfyui'])),
  MODEL_LATENCY_MS: int(0, 0, 600_000),
  MODEL_TIMEOUT_MS: optionalInt(1000, 3_600_000),
  MODEL_SLOW_CALL_MS: optionalInt(100, 3_600_000),
  MODEL_MAX_IN_FLIGHT: optionalInt(0, 10_000),
  MODEL_MAX_IN_FLIGHT_PER_WORKER: optionalInt(1, 256),
  MODEL_HTTP_ATTEMPTS: int(3, 1, 10),
  MODELS_FILE: optionalString,
  MODEL_BREAKER_FAILURES: int(DEFAULT_BREAKER_POLICY.failures, 0, 1000),
  MODEL_BREAKER_FAILURE_RATE: int(Math.round(DEFAULT_BREAKER_POLICY.failureRate * 100), 1, 100),
  MODEL_BREAKER_WINDOW_CALLS: int(DEFAULT_BREAKER_POLICY.windowCalls, 1, 1000),
  MODEL_BREAKER_WINDOW_MS: int(DEFAULT_BREAKER_POLICY.windowMs, 100, 86_400_000),
  MODEL_BREAKER_COOLOFF_MS: int(DEFAULT_BREAKER_POLICY.coolOffMs, 100, 3_600_000),
  FAILED_JOB_DAYS: int(30, 1, 3650),
  OPENAI_BASE_URL: url(['http:', 'https:']),
  OPENAI_API_KEY: optionalString,
  OPENAI_MODEL: z.preprocess((v) => (v === '' || v === undefined ? 'gpt-image-1' : v), z.string()),
  OPENAI_QUALITY: optionalString,
  OPENAI_SIZES: optionalString,
  OPENAI_ARBITRARY_SIZES: z.preprocess((v) => (v === '' || v === undefined ? 'false' : v), z.enum(['true', 'false'])),
  REPLICATE_API_TOKEN: optionalString,
  REPLICATE_MODEL_VERSION: optionalString,
  REPLICATE_BASE_URL: url(['http:', 'https:']),
  REPLICATE_POLL_INTERVAL_MS: int(1000, 100, 60_000),
  A1111_BASE_URL: url(['http:', 'https:']),
  A1111_USERNAME: optionalString,
  A1111_PASSWORD: optionalString,
  A1111_STEPS: int(25, 1, 200),
  A1111_NEGATIVE_PROMPT: optionalString,
  A1111_CHECKPOINT: optionalString,
  A1111_PROGRESS_INTERVAL_MS: int(1000, 100, 60_000),
  // Adapter settings the providers' README listed before they were read here.
  OPENAI_RESPONSE_FORMAT: z.preprocess((v) => (v === '' ? undefined : v), z.enum(['b64_json', 'omit']).optional()),
  REPLICATE_SIZE_INPUT: z.preprocess((v) => (v === '' ? undefined : v), z.enum(['dimensions', 'aspect_ratio']).optional()),
  REPLICATE_INPUT: optionalString,
  REPLICATE_PREFER_WAIT_SECONDS: z.preprocess((v) => (v === '' || v === undefined ? undefined : Number(v)), z.number().int().min(1).max(60).optional()),
  A1111_SAMPLER: optionalString,
  A1111_CFG_SCALE: z.preprocess((v) => (v === '' || v === undefined ? undefined : Number(v)), z.number().min(0).max(100).optional()),
  A1111_MAX_SIDE: int(1024, 64, 8192),
  A1111_DENOISING_STRENGTH: z.preprocess((v) => (v === '' || v === undefined ? undefined : Number(v)), z.number().min(0).max(1).optional()),
  COMFYUI_BASE_URL: url(['http:', 'https:']),
  COMFYUI_WORKFLOW: optionalString,
  COMFYUI_NODES: optionalString,
  COMFYUI_STEPS: z.preprocess((v) => (v === '' || v === undefined ? undefined : Number(v)), z.number().int().min(1).max(200).optional()),
  COMFYUI_MAX_SIDE: int(1024, 64, 8192),
  COMFYUI_POLL_INTERVAL_MS: int(1000, 50, 60_000),
  WORKER_CONCURRENCY: int(4, 1, 256),
  JOB_ATTEMPTS: int(3, 1, 20),
  JOB_BACKOFF_MS: int(1000, 0, 600_000),
  JOB_LOCK_MS: int(30_000, 500, 600_000),
  WORKER_SHUTDOWN_GRACE_MS: int(100_000, 0, 3_600_000),
  WEBHOOK_ATTEMPTS: int(DEFAULT_WEBHOOK_ATTEMPTS, 1, 30),
  WEBHOOK_BACKOFF_MS: int(DEFAULT_WEBHOOK_BACKOFF_MS, 0, 3_600_000),
  WEBHOOK_TIMEOUT_MS: int(10_000, 100, 60_000),
  WEBHOOK_CONCURRENCY: int(16, 1, 256),
  WEBHOOK_LOG_DAYS: int(30, 1, 3650),
  WEBHOOK_ALLOW_PRIVATE_ADDRESSES: z.preprocess((v) => (v === '' || v === undefined ? 'false' : v), z.enum(['true', 'false'])),
  LIBRARY_DELAY_SECONDS: int(30 * 24 * 3600, 0),
  INSTANT_MIN_SCORE: z.preprocess((v) => (v === '' || v === undefined ? 0.3 : Number(v)), z.number().min(0).max(1)),
  INSTANT_EMBEDDINGS: z.preprocess((v) => (v === '' || v === undefined ? 'wordnet' : v), z.enum(['wordnet', 'openai', 'local', 'off'])),
  EMBEDDINGS_BASE_URL: url(['http:', 'https:']),
  EMBEDDINGS_API_KEY: optionalString,
  EMBEDDINGS_MODEL: optionalString,
  EMBEDDINGS_DIMENSIONS: z.preprocess((v) => (v === '' || v === undefined ? undefined : Number(v)), z.number().int().min(8).max(8192).optional()),
  EMBEDDINGS_SCORE_FLOOR: z.preprocess((v) => (v === '' || v === undefined ? 0.2 : Number(v)), z.number().min(-1).max(1)),
  EMBEDDINGS_SCORE_CEILING: z.preprocess((v) => (v === '' || v === undefined ? 0.6 : Number(v)), z.number().min(-1).max(1)),
  EMBEDDINGS_MODEL_DIR: optionalString,
  EMBEDDINGS_POOLING: z.preprocess((v) => (v === '' ? undefined : v), z.enum(['mean', 'cls']).optional()),
  EMBEDDINGS_MAX_TOKENS: z.preprocess((v) => (v === '' || v === undefined ? undefined : Number(v)), z.number().int().min(8).max(8192).optional()),
  EMBEDDINGS_THREADS: int(1, 1, 64),
  RENDER_WAIT_MS: int(30_000, 0, 600_000),
  STYLE_PREVIEWS: z.preprocess((v) => (v === '' || v === undefined ? 'on' : v), z.enum(['on', 'off'])),
  EMBEDDED_DATABASE_THREAD: z.preprocess((v) => (v === '' || v === undefined ? 'off' : v), z.enum(['on', 'off'])),
  LOG_LEVEL: z.preprocess((v) => (v === '' || v === undefined ? 'info' : v), z.enum(['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly'])),
  LOG_FORMAT: z.preprocess((v) => (v === '' ? undefined : v), z.enum(['json', 'pretty']).optional()),
  MONTHLY_GENERATIONS_HOBBY: int(DEFAULT_MONTHLY_GENERATIONS.hobby, 0),
  MONTHLY_GENERATIONS_PRO: int(DEFAULT_MONTHLY_GENERATIONS.pro, 0),
  MONTHLY_GENERATIONS_BUSINESS: int(DEFAULT_MONTHLY_GENERATIONS.business, 0),
  MONTHLY_GENERATIONS_ENTERPRISE: int(DEFAULT_MONTHLY_GENERATIONS.enterprise, 0),
  ACTIVE_JOBS_PER_KEY_FREE: int(DEFAULT_ACTIVE_JOBS_PER_KEY.free, 1),
  ACTIVE_JOBS_PER_KEY_HOBBY: int(DEFAULT_ACTIVE_JOBS_PER_KEY.hobby, 1),
  ACTIVE_JOBS_PER_KEY_PRO: int(DEFAULT_ACTIVE_JOBS_PER_KEY.pro, 1),
  ACTIVE_JOBS_PER_KEY_BUSINESS: int(DEFAULT_ACTIVE_JOBS_PER_KEY.business, 1),
  ACTIVE_JOBS_PER_KEY_ENTERPRISE: int(DEFAULT_ACTIVE_JOBS_PER_KEY.enterprise, 1),
  PUBLISHABLE_IP_RATE_LIMIT: int(0, 0, 100_000),
  PUBLISHABLE_BUDGET_CLIENT_HOUR: int(DEFAULT_PUBLISHABLE_BUDGET.clientPerHour, 0, MAX_BUDGET),
  PUBLISHABLE_BUDGET_CLIENT_DAY: int(DEFAULT_PUBLISHABLE_BUDGET.clientPerDay, 0, MAX_BUDGET),
  PUBLISHABLE_BUDGET_KEY_HOUR: int(DEFAULT_PUBLISHABLE_BUDGET.keyPerHour, 0, MAX_BUDGET),
  PUBLISHABLE_BUDGET_KEY_DAY: int(DEFAULT_PUBLISHABLE_BUDGET.keyPerDay, 0, MAX_BUDGET),
  MAX_KEYS_PER_ACCOUNT: int(20, 1, 10_000),
  MAX_CHARACTERS_PER_ACCOUNT: int(50, 1, 100_000),
  UPLOAD_BYTES_PER_ACCOUNT: int(256 * 1024 * 1024, 0, 1024 ** 4),
  UPLOAD_TTL_HOURS: int(24, 1, 24 * 365),
  UPLOADS_IN_FLIGHT: int(4, 1, 256),
  UPLOADS_IN_FLIGHT_PER_ACCOUNT: int(2, 1, 256),
  JOB_STREAMS_PER_KEY: int(20, 1, 100_000),
  JOB_STREAMS_PER_ACCOUNT: int(100, 1, 1_000_000),
  SAFETY_FILTER: z.preprocess((v) => (v === '' || v === undefined ? 'on' : v), z.enum(['on', 'off'])),
  SAFETY_EXTRA_TERMS: optionalString,
  SAFETY_KIDS_TERMS: optionalString,
  TRUST_PROXY: optionalString,
  DASHBOARD_SESSION_DAYS: int(14, 1, 365),
  DASHBOARD_LINK_MINUTES: int(15, 1, 1440),
  DASHBOARD_RATE_LIMIT: int(300, 0, 100_000),
  DASHBOARD_SECURE_COOKIE: z.preprocess((v) => (v === '' ? undefined : v), z.enum(['on', 'off']).optional()),
  SMTP_URL: url(['smtp:', 'smtps:']),
  MAIL_FROM: z.preprocess((v) => (v === '' || v === undefined ? 'PromptPix <no-reply@promptpix.local>' : v), z.string().min(3)),
  HTTP_HEADERS_TIMEOUT_MS: int(DEFAULT_HTTP_LIMITS.headersTimeoutMs, 100, 600_000),
  HTTP_REQUEST_TIMEOUT_MS: int(DEFAULT_HTTP_LIMITS.requestTimeoutMs, 100, 3_600_000),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: int(DEFAULT_HTTP_LIMITS.keepAliveTimeoutMs, 0, 600_000),
  HTTP_MAX_CONNECTIONS: int(DEFAULT_HTTP_LIMITS.maxConnections, 0, 1_000_000),
  METRICS_PORT: int(9464, 0, 65535),
  METRICS_TOKEN: z.preprocess((v) => (v === '' ? undefined : v), z.string().min(16, 'must be at least 16 characters').optional()),
});

/** Every variable the service reads (deployment manifests are checked against it). */
export const ENV_KEYS = Object.keys(envSchema.shape) as Array<keyof z.infer<typeof envSchema>>;

export type Env = z.infer<typeof envSchema>;

export interface Config {
  port: number;
  dataDir: string;
  adminToken?: string;
  publicBaseUrl: string;
  database: { kind: 'postgres'; url: string; poolSize: number } | { kind: 'pglite'; dataDir: string; thread: boolean };
  redis?: { url: string; prefix: string };
  storage:
    | { kind: 'local'; root: string; publicBaseUrl: string }
    | {
        kind: 's3';
        bucket: string;
        region: string;
        endpoint?: string;
        accessKeyId?: string;
        secretAccessKey?: string;
        publicBaseUrl?: string;
        forcePathStyle: boolean;
      };
  /** The default model's settings (the single-model variables, or MODELS_FILE's default entry). */
  model: ModelConfig;
  /**
   * Every model callers can name (docs/operating/models.md), each with its limits where they
   * differ from its kind's defaults; the breaker's rules (each backend's failures and trial time
   * are then fitted to its limits: breakerPolicyFor), null when MODEL_BREAKER_FAILURES=0.
   */
  models: { defaultId?: string; entries: ModelEntry[]; breaker: BreakerPolicy | null };
  /** Days a failed job stays listed for operators and its account (docs/operating/models.md). */
  failedJobDays: number;
  worker: {
    concurrency: number;
    attempts: number;
    backoffMs: number;
    lockMs: number;
    /** After SIGTERM, how long running jobs may go on before they are handed back to the queue. */
    shutdownGraceMs: number;
  };
  /** Webhook deliveries: tries and backoff (retry n waits backoffMs * 2^(n-1)), per-request timeout, and the SSRF guard's switch. */
  webhooks: { attempts: number; backoffMs: number; timeoutMs: number; concurrency: number; allowPrivateAddresses: boolean; logDays: number };
  monthlyGenerations: Record<PlanName, number>;
  /** Cap on jobs queued or running per key, by plan. */
  activeJobsPerKey: Record<PlanName, number>;
  /** Requests a minute one client IP may make with one publishable key (0: no such limit). */
  publishableIpRateLimit: number;
  /** Fresh generations a publishable key may start per client address and per key, per hour and per day, unless the key sets its own. */
  publishableBudget: PublishableBudget;
  /** Live (unrevoked) API keys one account may hold, secret and publishable together. */
  maxKeysPerAccount: number;
  /** Characters (each up to 10 reference photos) one account may hold. */
  maxCharactersPerAccount: number;
  /** Images sent in to edit (POST /api/v1/uploads): bytes one account's live uploads may hold; hours an upload lives after its last use. */
  uploads: {
    bytesPerAccount: number;
    ttlHours: number;
    /** Image bodies one gateway process reads and decodes at once, and of those, per account. */
    inFlight: { perProcess: number; perAccount: number };
  };
  /** Job event streams one gateway holds open at once per key and per account. */
  jobStreams: { perKey: number; perAccount: number };
  /** The prompt safety filter; null when SAFETY_FILTER=off. */
  safety: { extraTerms: string[]; extraKidsTerms: string[] } | null;
  /** Express's `trust proxy` setting, so client IPs are read from X-Forwarded-For behind a proxy. */
  trustProxy?: string;
  /** The account dashboard (README, "Dashboard"). */
  dashboard: { sessionDays: number; linkMinutes: number; secureCookie: boolean; requestsPerMinute: number };
  /** SMTP when SMTP_URL is set; otherwise messages go to DATA_DIR/outbox. */
  mail: { smtpUrl?: string; from: string; outboxDir: string };
  libraryDelaySeconds: number;
  instantMinScore: number;
  /** How instant mode reads a prompt's meaning: WordNet concepts (embedded, the default), an OpenAI-compatible server, or lexical only. */
  instantEmbeddings: EmbedderConfig;
  renderWaitMs: number;
  /** Render the style presets' preview images at start-up. */
  stylePreviews: boolean;
  log: { level: string; format: 'json' | 'pretty' };
  /** The /demo page of the embed script: on outside production. */
  demoPage: boolean;
  /** The worker's /metrics and health port; an optional bearer token for /metrics (both apps). */
  metrics: { port: number; token?: string };
  /** What one HTTP connection may hold (the gateway's port and the worker's METRICS_PORT). */
  http: HttpLimits;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

const missing = (name: string, provider: string): never => {
  throw new ConfigError(`Invalid configuration:\n  ${name}: required when MODEL_PROVIDER=${provider}`);
};

/** A local model's unusable file as the ConfigError naming EMBEDDINGS_MODEL_DIR (at config time or when the model loads). */
export function localModelConfigError(error: unknown): unknown {
  return error instanceof LocalModelDirError ? new ConfigError(`Invalid configuration:\n  EMBEDDINGS_MODEL_DIR: ${error.message}`) : error;
}

/** Instant mode's text-embedding adapter (docs/api/instant.md). */
function embedderConfig(e: Env): EmbedderConfig {
  if (e.INSTANT_EMBEDDINGS !== 'openai' && e.INSTANT_EMBEDDINGS !== 'local') return { kind: e.INSTANT_EMBEDDINGS };
  const need = (name: string): never => {
    throw new ConfigError(`Invalid configuration:\n  ${name}: required when INSTANT_EMBEDDINGS=${e.INSTANT_EMBEDDINGS}`);
  };
  if (e.EMBEDDINGS_SCORE_CEILING <= e.EMBEDDINGS_SCORE_FLOOR)
    throw new ConfigError('Invalid configuration:\n  EMBEDDINGS_SCORE_CEILING: must be above EMBEDDINGS_SCORE_FLOOR');
  const calibration = { floor: e.EMBEDDINGS_SCORE_FLOOR, ceiling: e.EMBEDDINGS_SCORE_CEILING };
  if (e.INSTANT_EMBEDDINGS === 'local') {
    const dir = e.EMBEDDINGS_MODEL_DIR ?? need('EMBEDDINGS_MODEL_DIR');
    let files: LocalModelFiles;
    try {
      files = locateLocalModel(dir, e.EMBEDDINGS_POOLING);
    } catch (error) {
      throw localModelConfigError(error);
    }
    // 256 tokens when the export names no length (sentence-transformers' usual); prompts are far shorter.
    return {
      kind: 'local',
      files,
      pooling: files.pooling ?? 'mean',
      maxTokens: e.EMBEDDINGS_MAX_TOKENS ?? Math.min(files.maxTokens ?? 256, 512),
      threads: e.EMBEDDINGS_THREADS,
      calibration,
    };
  }
  return {
    kind: 'openai',
    baseUrl: e.EMBEDDINGS_BASE_URL ?? need('EMBEDDINGS_BASE_URL'),
    apiKey: e.EMBEDDINGS_API_KEY,
    model: e.EMBEDDINGS_MODEL ?? need('EMBEDDINGS_MODEL'),
    dimensions: e.EMBEDDINGS_DIMENSIONS,
    calibration,
    timeoutMs: e.MODEL_TIMEOUT_MS,
    retry: { attempts: e.MODEL_HTTP_ATTEMPTS },
  };
}

/** The model settings of the chosen provider (README, "Model providers"). */
function modelConfig(e: Env): ModelConfig {
  const common = { timeoutMs: e.MODEL_TIMEOUT_MS, retry: { attempts: e.MODEL_HTTP_ATTEMPTS } };
  switch (e.MODEL_PROVIDER) {
    case 'procedural':
      return { provider: 'procedural', latencyMs: e.MODEL_LATENCY_MS };
    case 'openai':
      return {
        provider: 'openai',
        ...common,
        baseUrl: e.OPENAI_BASE_URL,
        apiKey: e.OPENAI_API_KEY,
        model: e.OPENAI_MODEL,
        quality: e.OPENAI_QUALITY,
        sizes: e.OPENAI_SIZES?.split(',')
          .map((s) => s.trim())
          .filter(Boolean),
        arbitrarySizes: e.OPENAI_ARBITRARY_SIZES === 'true',
        ...(e.OPENAI_RESPONSE_FORMAT ? { responseFormat: e.OPENAI_RESPONSE_FORMAT === 'b64_json' } : {}),
      };
    case 'replicate':
      return {
        provider: 'replicate',
        ...common,
        baseUrl: e.REPLICATE_BASE_URL,
        apiToken: e.REPLICATE_API_TOKEN ?? missing('REPLICATE_API_TOKEN', 'replicate'),
        version: e.REPLICATE_MODEL_VERSION ?? missing('REPLICATE_MODEL_VERSION', 'replicate'),
        pollIntervalMs: e.REPLICATE_POLL_INTERVAL_MS,
        sizeInput: e.REPLICATE_SIZE_INPUT,
        input: e.REPLICATE_INPUT ? jsonObjectSetting('REPLICATE_INPUT', e.REPLICATE_INPUT) : undefined,
        preferWaitSeconds: e.REPLICATE_PREFER_WAIT_SECONDS,
      };
    case 'a1111':
      if (!!e.A1111_USERNAME !== !!e.A1111_PASSWORD) throw new ConfigError('Invalid configuration:\n  A1111_USERNAME / A1111_PASSWORD: set both or neither');
      return {
        provider: 'a1111',
        ...common,
        baseUrl: e.A1111_BASE_URL,
        username: e.A1111_USERNAME,
        password: e.A1111_PASSWORD,
        steps: e.A1111_STEPS,
        negativePrompt: e.A1111_NEGATIVE_PROMPT,
        checkpoint: e.A1111_CHECKPOINT,
        progressIntervalMs: e.A1111_PROGRESS_INTERVAL_MS,
        samplerName: e.A1111_SAMPLER,
        cfgScale: e.A1111_CFG_SCALE,
        maxSide: e.A1111_MAX_SIDE,
        denoisingStrength: e.A1111_DENOISING_STRENGTH,
      };
    case 'comfyui':
      return {
        provider: 'comfyui',
        ...common,
        baseUrl: e.COMFYUI_BASE_URL,
        workflow: readJsonSetting('COMFYUI_WORKFLOW', readFileText(e.COMFYUI_WORKFLOW ?? missing('COMFYUI_WORKFLOW', 'comfyui'))),
        nodes: e.COMFYUI_NODES ? (readJsonSetting('COMFYUI_NODES', e.COMFYUI_NODES) as Record<string, string>) : undefined,
        steps: e.COMFYUI_STEPS,
        maxSide: e.COMFYUI_MAX_SIDE,
        pollIntervalMs: e.COMFYUI_POLL_INTERVAL_MS,
      };
  }
}

/** COMFYUI_WORKFLOW names a file: its text, or a ConfigError naming the variable. */
function readFileText(path: string): { path: string; text: string } {
  try {
    return { path, text: readFileSync(path, 'utf8') };
  } catch (error) {
    throw new ConfigError(
      `Invalid configuration:\n  COMFYUI_WORKFLOW: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
}

/** A setting holding a JSON object, e.g. REPLICATE_INPUT. */
function jsonObjectSetting(name: string, text: string): Record<string, unknown> {
  const value = readJsonSetting(name, text);
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new ConfigError(`Invalid configuration:\n  ${name}: must be a JSON object`);
  return value as Record<string, unknown>;
}

/** A setting holding JSON (inline, or a file's text): parsed, or a ConfigError naming it. */
function readJsonSetting(name: string, source: string | { path: string; text: string }): unknown {
  const text = typeof source === 'string' ? source : source.text;
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const where = typeof source === 'string' ? '' : ` in ${source.path}`;
    throw new ConfigError(`Invalid configuration:\n  ${name}: not valid JSON${where} (${(error as Error).message})`);
  }
}

/** MODELS_FILE's models, or the one model of the single-model variables. */
function modelsConfig(e: Env, env: NodeJS.ProcessEnv): Config['models'] {
  const breaker: BreakerPolicy | null =
    e.MODEL_BREAKER_FAILURES === 0
      ? null
      : {
          failures: e.MODEL_BREAKER_FAILURES,
          failureRate: e.MODEL_BREAKER_FAILURE_RATE / 100,
          windowCalls: e.MODEL_BREAKER_WINDOW_CALLS,
          windowMs: e.MODEL_BREAKER_WINDOW_MS,
          coolOffMs: e.MODEL_BREAKER_COOLOFF_MS,
          // Per backend, a trial may run as long as one of its calls, plus 30 s (breakerPolicyFor).
          trialMs: DEFAULT_BREAKER_POLICY.trialMs,
        };
  // The timeout is part of each model's config (the adapters enforce it); these are the worker's.
  const limits = Object.fromEntries(
    Object.entries({ slowCallMs: e.MODEL_SLOW_CALL_MS, maxInFlight: e.MODEL_MAX_IN_FLIGHT, maxInFlightPerWorker: e.MODEL_MAX_IN_FLIGHT_PER_WORKER }).filter(
      ([, v]) => v !== undefined,
    ),
  ) as BackendLimitSettings;
  if (!e.MODELS_FILE) return { entries: [{ config: modelConfig(e), ...(Object.keys(limits).length > 0 && { limits }) }], breaker };
  const path = resolve(e.MODELS_FILE);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    const reason = error instanceof SyntaxError ? 'is not valid JSON' : 'cannot be read';
    throw new ConfigError(`Invalid configuration:\n  MODELS_FILE: ${path} ${reason}`);
  }
  try {
    const file = parseModelsFile(json, env, { timeoutMs: e.MODEL_TIMEOUT_MS, httpAttempts: e.MODEL_HTTP_ATTEMPTS, limits });
    return { defaultId: file.defaultId, entries: file.entries, breaker };
  } catch (error) {
    if (!(error instanceof ModelsFileError)) throw error;
    throw new ConfigError(
      `Invalid configuration:\n${error.message
        .split('\n')
        .map((line) => `  MODELS_FILE (${path}) ${line}`)
        .join('\n')}`,
    );
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  const models = modelsConfig(e, env);
  const dataDir = resolve(e.DATA_DIR);
  const publicBaseUrl = (e.PUBLIC_BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, '');
  if (e.NODE_ENV === 'production' && e.WEBHOOK_ALLOW_PRIVATE_ADDRESSES === 'true') {
    throw new ConfigError(
      "Invalid configuration:\n  WEBHOOK_ALLOW_PRIVATE_ADDRESSES: must not be true when NODE_ENV=production (it turns the webhooks' SSRF guard off)",
    );
  }
  if (e.HTTP_HEADERS_TIMEOUT_MS > e.HTTP_REQUEST_TIMEOUT_MS) {
    throw new ConfigError('Invalid configuration:\n  HTTP_HEADERS_TIMEOUT_MS: must not be above HTTP_REQUEST_TIMEOUT_MS (the headers are part of the request)');
  }
  if (e.S3_BUCKET && !!e.S3_ACCESS_KEY_ID !== !!e.S3_SECRET_ACCESS_KEY) {
    throw new ConfigError('Invalid configuration:\n  S3_ACCESS_KEY_ID / S3_SECRET_ACCESS_KEY: set both or neither');
  }
  return {
    port: e.PORT,
    dataDir,
    adminToken: e.ADMIN_TOKEN,
    publicBaseUrl,
    database: e.DATABASE_URL
      ? { kind: 'postgres', url: e.DATABASE_URL, poolSize: e.DATABASE_POOL_SIZE }
      : { kind: 'pglite', dataDir: resolve(dataDir, 'db'), thread: e.EMBEDDED_DATABASE_THREAD === 'on' },
    redis: e.REDIS_URL ? { url: e.REDIS_URL, prefix: e.REDIS_PREFIX } : undefined,
    storage: e.S3_BUCKET
      ? {
          kind: 's3',
          bucket: e.S3_BUCKET,
          region: e.S3_REGION,
          endpoint: e.S3_ENDPOINT,
          accessKeyId: e.S3_ACCESS_KEY_ID,
          secretAccessKey: e.S3_SECRET_ACCESS_KEY,
          publicBaseUrl: e.S3_PUBLIC_BASE_URL,
          forcePathStyle: e.S3_FORCE_PATH_STYLE ? e.S3_FORCE_PATH_STYLE === 'true' : !!e.S3_ENDPOINT,
        }
      : { kind: 'local', root: resolve(dataDir, 'files'), publicBaseUrl },
    model: (models.entries.find((m) => m.id === models.defaultId) ?? models.entries[0]).config,
    models,
    failedJobDays: e.FAILED_JOB_DAYS,
    worker: {
      concurrency: e.WORKER_CONCURRENCY,
      attempts: e.JOB_ATTEMPTS,
      backoffMs: e.JOB_BACKOFF_MS,
      lockMs: e.JOB_LOCK_MS,
      shutdownGraceMs: e.WORKER_SHUTDOWN_GRACE_MS,
    },
    webhooks: {
      attempts: e.WEBHOOK_ATTEMPTS,
      backoffMs: e.WEBHOOK_BACKOFF_MS,
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      concurrency: e.WEBHOOK_CONCURRENCY,
      logDays: e.WEBHOOK_LOG_DAYS,
      allowPrivateAddresses: e.WEBHOOK_ALLOW_PRIVATE_ADDRESSES === 'true',
    },
    monthlyGenerations: {
      free: DEFAULT_MONTHLY_GENERATIONS.free,
      hobby: e.MONTHLY_GENERATIONS_HOBBY,
      pro: e.MONTHLY_GENERATIONS_PRO,
      business: e.MONTHLY_GENERATIONS_BUSINESS,
      enterprise: e.MONTHLY_GENERATIONS_ENTERPRISE,
    },
    activeJobsPerKey: {
      free: e.ACTIVE_JOBS_PER_KEY_FREE,
      hobby: e.ACTIVE_JOBS_PER_KEY_HOBBY,
      pro: e.ACTIVE_JOBS_PER_KEY_PRO,
      business: e.ACTIVE_JOBS_PER_KEY_BUSINESS,
      enterprise: e.ACTIVE_JOBS_PER_KEY_ENTERPRISE,
    },
    publishableIpRateLimit: e.PUBLISHABLE_IP_RATE_LIMIT,
    publishableBudget: {
      clientPerHour: e.PUBLISHABLE_BUDGET_CLIENT_HOUR,
      clientPerDay: e.PUBLISHABLE_BUDGET_CLIENT_DAY,
      keyPerHour: e.PUBLISHABLE_BUDGET_KEY_HOUR,
      keyPerDay: e.PUBLISHABLE_BUDGET_KEY_DAY,
    },
    maxKeysPerAccount: e.MAX_KEYS_PER_ACCOUNT,
    maxCharactersPerAccount: e.MAX_CHARACTERS_PER_ACCOUNT,
    uploads: {
      bytesPerAccount: e.UPLOAD_BYTES_PER_ACCOUNT,
      ttlHours: e.UPLOAD_TTL_HOURS,
      inFlight: { perProcess: e.UPLOADS_IN_FLIGHT, perAccount: e.UPLOADS_IN_FLIGHT_PER_ACCOUNT },
    },
    jobStreams: { perKey: e.JOB_STREAMS_PER_KEY, perAccount: e.JOB_STREAMS_PER_ACCOUNT },
    safety: e.SAFETY_FILTER === 'on' ? { extraTerms: parseTermList(e.SAFETY_EXTRA_TERMS), extraKidsTerms: parseTermList(e.SAFETY_KIDS_TERMS) } : null,
    trustProxy: e.TRUST_PROXY,
    dashboard: {
      sessionDays: e.DASHBOARD_SESSION_DAYS,
      linkMinutes: e.DASHBOARD_LINK_MINUTES,
      requestsPerMinute: e.DASHBOARD_RATE_LIMIT,
      secureCookie: e.DASHBOARD_SECURE_COOKIE ? e.DASHBOARD_SECURE_COOKIE === 'on' : e.NODE_ENV === 'production',
    },
    mail: { smtpUrl: e.SMTP_URL, from: e.MAIL_FROM, outboxDir: resolve(dataDir, 'outbox') },
    libraryDelaySeconds: e.LIBRARY_DELAY_SECONDS,
    instantMinScore: e.INSTANT_MIN_SCORE,
    instantEmbeddings: embedderConfig(e),
    renderWaitMs: e.RENDER_WAIT_MS,
    stylePreviews: e.STYLE_PREVIEWS === 'on',
    demoPage: e.NODE_ENV !== 'production',
    log: { level: e.LOG_LEVEL, format: e.LOG_FORMAT ?? (e.NODE_ENV === 'production' ? 'json' : 'pretty') },
    metrics: { port: e.METRICS_PORT, token: e.METRICS_TOKEN },
    http: {
      headersTimeoutMs: e.HTTP_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: e.HTTP_REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: e.HTTP_KEEP_ALIVE_TIMEOUT_MS,
      maxConnections: e.HTTP_MAX_CONNECTIONS,
    },
  };
}

/** Gateway and worker as separate processes share state only through Redis and PostgreSQL. */
export function requireSplitDeployment(config: Config, role: string): void {
  const missing = [config.database.kind === 'pglite' && 'DATABASE_URL', !config.redis && 'REDIS_URL'].filter(Boolean);
  if (missing.length > 0) {
    throw new ConfigError(
      `Invalid configuration:\n  ${missing.join(', ')}: required to run the ${role} as its own process (use \`npm start\` for the single-process embedded mode)`,
    );
  }
}
