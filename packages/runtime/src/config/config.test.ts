import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { removeTinyModels, writeTinyModel } from '@promptpix/testing/local-model';
import { ConfigError, loadConfig, requireSplitDeployment } from './config';

describe('config', () => {
  afterAll(removeTinyModels);

  it('embedded defaults on an empty environment', () => {
    const config = loadConfig({});
    expect(config.port).toBe(3000);
    expect(config.database.kind).toBe('pglite');
    expect(config.redis).toBeUndefined();
    expect(config.storage.kind).toBe('local');
    expect(config.publicBaseUrl).toBe('http://localhost:3000');
    expect(config.model).toEqual({ provider: 'procedural', latencyMs: 0 });
    expect(config.monthlyGenerations.free).toBe(100);
    // Webhooks: about a day of retries, and the SSRF guard on.
    expect(config.webhooks).toEqual({ attempts: 13, backoffMs: 20_000, timeoutMs: 10_000, concurrency: 16, allowPrivateAddresses: false, logDays: 30 });
  });

  it('dashboard and mail: defaults, Secure cookies in production unless turned off, the outbox under DATA_DIR', () => {
    const embedded = loadConfig({ DATA_DIR: '/srv/pp' });
    expect(embedded.dashboard).toEqual({ sessionDays: 14, linkMinutes: 15, secureCookie: false, requestsPerMinute: 300 });
    expect(embedded.mail).toEqual({ smtpUrl: undefined, from: 'PromptPix <no-reply@promptpix.local>', outboxDir: '/srv/pp/outbox' });
    expect(loadConfig({ NODE_ENV: 'production' }).dashboard.secureCookie).toBe(true);
    expect(loadConfig({ NODE_ENV: 'production', DASHBOARD_SECURE_COOKIE: 'off' }).dashboard.secureCookie).toBe(false);
    expect(loadConfig({ SMTP_URL: 'smtps://u:p@mail.example.com:465' }).mail.smtpUrl).toBe('smtps://u:p@mail.example.com:465');
  });

  it('HTTP limits: bounded by default, each settable, headers never allowed longer than the whole request', () => {
    expect(loadConfig({}).http).toEqual({ headersTimeoutMs: 15_000, requestTimeoutMs: 60_000, keepAliveTimeoutMs: 65_000, maxConnections: 4000 });
    expect(
      loadConfig({ HTTP_HEADERS_TIMEOUT_MS: '500', HTTP_REQUEST_TIMEOUT_MS: '2000', HTTP_KEEP_ALIVE_TIMEOUT_MS: '5000', HTTP_MAX_CONNECTIONS: '0' }).http,
    ).toEqual({ headersTimeoutMs: 500, requestTimeoutMs: 2000, keepAliveTimeoutMs: 5000, maxConnections: 0 });
    expect(() => loadConfig({ HTTP_HEADERS_TIMEOUT_MS: '30000', HTTP_REQUEST_TIMEOUT_MS: '20000' })).toThrow(
      /HTTP_HEADERS_TIMEOUT_MS: must not be above HTTP_REQUEST_TIMEOUT_MS/,
    );
  });

  it('production adapters when their variables are set', () => {
    const config = loadConfig({ DATABASE_URL: 'postgresql://u@h/db', REDIS_URL: 'redis://h:6379', S3_BUCKET: 'b', S3_ENDPOINT: 'http://minio:9000' });
    expect(config.database).toMatchObject({ kind: 'postgres', url: 'postgresql://u@h/db' });
    expect(config.redis).toEqual({ url: 'redis://h:6379', prefix: 'promptpix' });
    expect(config.storage).toMatchObject({ kind: 's3', bucket: 'b', forcePathStyle: true });
    expect(() => requireSplitDeployment(config, 'gateway')).not.toThrow();
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ REDIS_URL: 'http://x' }, 'REDIS_URL'],
    [{ ADMIN_TOKEN: 'short' }, 'ADMIN_TOKEN'],
    [{ SMTP_URL: 'http://mail.example.com' }, 'SMTP_URL'],
    [{ DASHBOARD_SESSION_DAYS: '0' }, 'DASHBOARD_SESSION_DAYS'],
    [{ DASHBOARD_SECURE_COOKIE: 'yes' }, 'DASHBOARD_SECURE_COOKIE'],
    [{ WORKER_CONCURRENCY: '0' }, 'WORKER_CONCURRENCY'],
    [{ WEBHOOK_ATTEMPTS: '0' }, 'WEBHOOK_ATTEMPTS'],
    [{ WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'yes' }, 'WEBHOOK_ALLOW_PRIVATE_ADDRESSES'],
    [{ WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true', NODE_ENV: 'production' }, 'WEBHOOK_ALLOW_PRIVATE_ADDRESSES: must not be true when NODE_ENV=production'],
    [{ MODEL_PROVIDER: 'dalle' }, 'MODEL_PROVIDER'],
    [{ INSTANT_MIN_SCORE: '2' }, 'INSTANT_MIN_SCORE'],
    [{ INSTANT_EMBEDDINGS: 'bert' }, 'INSTANT_EMBEDDINGS'],
    [{ INSTANT_EMBEDDINGS: 'openai', EMBEDDINGS_MODEL: 'm' }, 'EMBEDDINGS_BASE_URL'],
    [{ INSTANT_EMBEDDINGS: 'openai', EMBEDDINGS_BASE_URL: 'http://127.0.0.1:11434' }, 'EMBEDDINGS_MODEL'],
    [{ INSTANT_EMBEDDINGS: 'openai', EMBEDDINGS_BASE_URL: 'ftp://x', EMBEDDINGS_MODEL: 'm' }, 'EMBEDDINGS_BASE_URL'],
    [{ INSTANT_EMBEDDINGS: 'openai', EMBEDDINGS_BASE_URL: 'http://x', EMBEDDINGS_MODEL: 'm', EMBEDDINGS_SCORE_FLOOR: '0.7' }, 'EMBEDDINGS_SCORE_CEILING'],
    [{ INSTANT_EMBEDDINGS: 'local' }, 'EMBEDDINGS_MODEL_DIR: required when INSTANT_EMBEDDINGS=local'],
    [{ INSTANT_EMBEDDINGS: 'local', EMBEDDINGS_MODEL_DIR: '/nonexistent/minilm' }, 'EMBEDDINGS_MODEL_DIR: /nonexistent/minilm: not a directory'],
    [{ INSTANT_EMBEDDINGS: 'local', EMBEDDINGS_MODEL_DIR: '/tmp', EMBEDDINGS_POOLING: 'max' }, 'EMBEDDINGS_POOLING'],
    [{ INSTANT_EMBEDDINGS: 'local', EMBEDDINGS_MODEL_DIR: '/tmp', EMBEDDINGS_THREADS: '0' }, 'EMBEDDINGS_THREADS'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ S3_BUCKET: 'b', S3_ACCESS_KEY_ID: 'id' }, 'S3_SECRET_ACCESS_KEY'],
  ])('%j fails naming %s', (env, name) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(name);
  });

  it('webhooks may reach private addresses only outside production', () => {
    expect(loadConfig({ WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true' }).webhooks.allowPrivateAddresses).toBe(true);
    expect(loadConfig({ NODE_ENV: 'production' }).webhooks.allowPrivateAddresses).toBe(false);
  });

  it('model providers get their own settings', () => {
    expect(
      loadConfig({
        MODEL_PROVIDER: 'openai',
        OPENAI_API_KEY: 'k',
        OPENAI_BASE_URL: 'http://127.0.0.1:8000',
        OPENAI_SIZES: '512x512, 1024x1024',
        MODEL_TIMEOUT_MS: '5000',
      }).model,
    ).toMatchObject({
      provider: 'openai',
      apiKey: 'k',
      baseUrl: 'http://127.0.0.1:8000',
      model: 'gpt-image-1',
      sizes: ['512x512', '1024x1024'],
      timeoutMs: 5000,
    });
    expect(loadConfig({ MODEL_PROVIDER: 'a1111', A1111_BASE_URL: 'http://gpu:7860' }).model).toMatchObject({
      provider: 'a1111',
      baseUrl: 'http://gpu:7860',
      steps: 25,
    });
    expect(() => loadConfig({ MODEL_PROVIDER: 'replicate', REPLICATE_API_TOKEN: 't' })).toThrow('REPLICATE_MODEL_VERSION');
    expect(() => loadConfig({ MODEL_PROVIDER: 'a1111', A1111_USERNAME: 'u' })).toThrow('A1111_PASSWORD');
  });

  it('reads the adapter settings the backend pages document', () => {
    expect(loadConfig({ MODEL_PROVIDER: 'openai', OPENAI_RESPONSE_FORMAT: 'omit' }).model).toMatchObject({ responseFormat: false });
    expect(loadConfig({ MODEL_PROVIDER: 'openai' }).model).not.toHaveProperty('responseFormat');
    expect(
      loadConfig({
        MODEL_PROVIDER: 'replicate',
        REPLICATE_API_TOKEN: 't',
        REPLICATE_MODEL_VERSION: 'o/m',
        REPLICATE_SIZE_INPUT: 'aspect_ratio',
        REPLICATE_INPUT: '{"num_inference_steps":4}',
        REPLICATE_PREFER_WAIT_SECONDS: '30',
      }).model,
    ).toMatchObject({ sizeInput: 'aspect_ratio', input: { num_inference_steps: 4 }, preferWaitSeconds: 30 });
    expect(() => loadConfig({ MODEL_PROVIDER: 'replicate', REPLICATE_API_TOKEN: 't', REPLICATE_MODEL_VERSION: 'o/m', REPLICATE_INPUT: '[1]' })).toThrow(
      'REPLICATE_INPUT: must be a JSON object',
    );
    expect(
      loadConfig({
        MODEL_PROVIDER: 'a1111',
        A1111_SAMPLER: 'DPM++ 2M',
        A1111_CFG_SCALE: '6.5',
        A1111_MAX_SIDE: '768',
        A1111_DENOISING_STRENGTH: '0.45',
        A1111_PROGRESS_INTERVAL_MS: '500',
      }).model,
    ).toMatchObject({ samplerName: 'DPM++ 2M', cfgScale: 6.5, maxSide: 768, denoisingStrength: 0.45, progressIntervalMs: 500 });
    expect(() => loadConfig({ MODEL_PROVIDER: 'a1111', A1111_DENOISING_STRENGTH: '2' })).toThrow('A1111_DENOISING_STRENGTH');
  });

  it('comfyui reads its workflow file and node mapping, naming the variable when either is unusable', () => {
    const dir = mkdtempSync(join(tmpdir(), 'comfy-config-'));
    const workflow = join(dir, 'workflow.json');
    writeFileSync(workflow, '{"9":{"class_type":"SaveImage","inputs":{}}}');
    expect(
      loadConfig({
        MODEL_PROVIDER: 'comfyui',
        COMFYUI_BASE_URL: 'http://gpu:8188',
        COMFYUI_WORKFLOW: workflow,
        COMFYUI_NODES: '{"prompt":"6.text"}',
        COMFYUI_STEPS: '30',
      }).model,
    ).toEqual({
      provider: 'comfyui',
      baseUrl: 'http://gpu:8188',
      workflow: { '9': { class_type: 'SaveImage', inputs: {} } },
      nodes: { prompt: '6.text' },
      steps: 30,
      maxSide: 1024,
      pollIntervalMs: 1000,
      retry: { attempts: 3 },
    });
    expect(() => loadConfig({ MODEL_PROVIDER: 'comfyui' })).toThrow('COMFYUI_WORKFLOW: required when MODEL_PROVIDER=comfyui');
    expect(() => loadConfig({ MODEL_PROVIDER: 'comfyui', COMFYUI_WORKFLOW: join(dir, 'missing.json') })).toThrow(
      `COMFYUI_WORKFLOW: cannot read ${join(dir, 'missing.json')} (ENOENT)`,
    );
    writeFileSync(workflow, '{"nodes": [');
    expect(() => loadConfig({ MODEL_PROVIDER: 'comfyui', COMFYUI_WORKFLOW: workflow })).toThrow(`COMFYUI_WORKFLOW: not valid JSON in ${workflow}`);
    writeFileSync(workflow, '{}');
    expect(() => loadConfig({ MODEL_PROVIDER: 'comfyui', COMFYUI_WORKFLOW: workflow, COMFYUI_NODES: 'prompt=6.text' })).toThrow(
      'COMFYUI_NODES: not valid JSON',
    );
    rmSync(dir, { recursive: true, force: true });
  });

  it('instant mode reads meaning with WordNet by default; the upstream adapter gets its own settings', () => {
    expect(loadConfig({}).instantEmbeddings).toEqual({ kind: 'wordnet' });
    expect(loadConfig({ INSTANT_EMBEDDINGS: 'off' }).instantEmbeddings).toEqual({ kind: 'off' });
    expect(
      loadConfig({
        INSTANT_EMBEDDINGS: 'openai',
        EMBEDDINGS_BASE_URL: 'http://127.0.0.1:11434/v1',
        EMBEDDINGS_MODEL: 'nomic-embed-text',
        EMBEDDINGS_DIMENSIONS: '256',
      }).instantEmbeddings,
    ).toMatchObject({
      kind: 'openai',
      baseUrl: 'http://127.0.0.1:11434/v1',
      model: 'nomic-embed-text',
      dimensions: 256,
      calibration: { floor: 0.2, ceiling: 0.6 },
    });
  });

  it('the local model adapter: files from EMBEDDINGS_MODEL_DIR, pooling and length from the export unless set', () => {
    const { dir } = writeTinyModel({ poolingMode: 'cls_token' });
    expect(loadConfig({ INSTANT_EMBEDDINGS: 'local', EMBEDDINGS_MODEL_DIR: dir }).instantEmbeddings).toMatchObject({
      kind: 'local',
      files: { dir, onnx: join(dir, 'onnx', 'model.onnx'), name: 'promptpix/tiny-sentence-encoder' },
      pooling: 'cls',
      maxTokens: 512,
      threads: 1,
      calibration: { floor: 0.2, ceiling: 0.6 },
    });
    const set = {
      INSTANT_EMBEDDINGS: 'local',
      EMBEDDINGS_MODEL_DIR: dir,
      EMBEDDINGS_POOLING: 'mean',
      EMBEDDINGS_MAX_TOKENS: '128',
      EMBEDDINGS_THREADS: '2',
      EMBEDDINGS_SCORE_FLOOR: '0.3',
      EMBEDDINGS_SCORE_CEILING: '0.7',
    };
    expect(loadConfig(set).instantEmbeddings).toMatchObject({ pooling: 'mean', maxTokens: 128, threads: 2, calibration: { floor: 0.3, ceiling: 0.7 } });
  });

  it('a local model directory without a file it needs stops start-up naming the variable and the file', () => {
    const { dir } = writeTinyModel({ omit: ['tokenizer.json'] });
    expect(() => loadConfig({ INSTANT_EMBEDDINGS: 'local', EMBEDDINGS_MODEL_DIR: dir })).toThrow(
      new ConfigError(`Invalid configuration:\n  EMBEDDINGS_MODEL_DIR: ${join(dir, 'tokenizer.json')}: missing`),
    );
    const noModel = writeTinyModel({ omit: ['onnx/model.onnx'] });
    expect(() => loadConfig({ INSTANT_EMBEDDINGS: 'local', EMBEDDINGS_MODEL_DIR: noModel.dir })).toThrow(
      `EMBEDDINGS_MODEL_DIR: ${join(noModel.dir, 'onnx', 'model.onnx')}: missing`,
    );
  });

  it('split processes need DATABASE_URL and REDIS_URL', () => {
    expect(() => requireSplitDeployment(loadConfig({}), 'worker')).toThrow('DATABASE_URL, REDIS_URL');
  });
});
