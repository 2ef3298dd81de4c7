import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createModelRegistry } from '@promptpix/models';
import { ConfigError, loadConfig } from './config';
import { parseModelsFile, resolveEnvReferences } from './models-file';

const defaults = { timeoutMs: undefined, httpAttempts: 3 };
const two = {
  default: 'gpu',
  models: {
    gpu: { backend: 'a1111', baseUrl: 'http://gpu:7860', steps: 30, sizes: ['1024x1024', '1152x896'], fallback: 'hosted' },
    hosted: { backend: 'openai', apiKey: '${OPENAI_KEY}', model: 'gpt-image-1' },
  },
};

describe('parseModelsFile', () => {
  it('turns each entry into its backend settings, with the default, sizes and fallback', () => {
    const file = parseModelsFile(two, { OPENAI_KEY: 'sk-secret' }, defaults);
    expect(file.defaultId).toBe('gpu');
    expect(file.entries).toEqual([
      {
        id: 'gpu',
        config: expect.objectContaining({ provider: 'a1111', baseUrl: 'http://gpu:7860', steps: 30, retry: { attempts: 3 } }),
        sizes: ['1024x1024', '1152x896'],
        fallback: 'hosted',
      },
      { id: 'hosted', config: expect.objectContaining({ provider: 'openai', apiKey: 'sk-secret', model: 'gpt-image-1', arbitrarySizes: false }) },
    ]);
  });

  const bad: Array<[string, unknown, NodeJS.ProcessEnv, string]> = [
    [
      'an unknown backend',
      { default: 'a', models: { a: { backend: 'dalle' } } },
      {},
      'models.a.backend: must be one of procedural, openai, replicate, a1111, comfyui',
    ],
    [
      'a bad URL',
      { default: 'a', models: { a: { backend: 'a1111', baseUrl: 'gpu:7860' } } },
      {},
      'models.a.baseUrl: must be a URL starting with http:// or https://',
    ],
    ['a misspelt setting', { default: 'a', models: { a: { backend: 'a1111', baseURL: 'http://gpu' } } }, {}, 'models.a'],
    ['a missing required setting', { default: 'a', models: { a: { backend: 'replicate', version: 'x' } } }, {}, 'models.a.apiToken'],
    ['a bad size', { default: 'a', models: { a: { backend: 'procedural', sizes: ['big'] } } }, {}, 'models.a.sizes.0: must be WxH, e.g. 1024x1024'],
    [
      'half of basic auth',
      { default: 'a', models: { a: { backend: 'a1111', username: 'u' } } },
      {},
      'models.a.password: set both username and password or neither',
    ],
    ['a default that is not a model', { default: 'b', models: { a: { backend: 'procedural' } } }, {}, 'default: "b" is not one of the models'],
    [
      'a fallback that is not a model',
      { default: 'a', models: { a: { backend: 'procedural', fallback: 'c' } } },
      {},
      'models.a.fallback: "c" is not one of the models',
    ],
    [
      'a model falling back to itself',
      { default: 'a', models: { a: { backend: 'procedural', fallback: 'a' } } },
      {},
      'models.a.fallback: must name another model',
    ],
    [
      'an unset variable',
      { default: 'a', models: { a: { backend: 'openai', apiKey: '${NOPE}' } } },
      {},
      'models.a.apiKey: refers to ${NOPE}, which is not set',
    ],
    ['no models', { default: 'a', models: {} }, {}, 'models: must name at least one model'],
    [
      'a comfyui entry without a workflow',
      { default: 'a', models: { a: { backend: 'comfyui' } } },
      {},
      'models.a.workflow: set exactly one of workflow and workflowFile',
    ],
    [
      'a comfyui workflow file that is not there',
      { default: 'a', models: { a: { backend: 'comfyui', workflowFile: '/nonexistent/workflow.json' } } },
      {},
      'models.a.workflowFile: cannot read /nonexistent/workflow.json (ENOENT)',
    ],
    ['a bad model id', { default: 'a', models: { 'a b': { backend: 'procedural' } } }, {}, 'models.a b'],
    ['not an object', [1, 2], {}, '(file)'],
  ];
  it.each(bad)('names the path of %s', (_name, json, env, expected) => {
    expect(() => parseModelsFile(json, env, defaults)).toThrow(expected);
  });

  it("reads a comfyui entry's workflow from its file", () => {
    const file = parseModelsFile(
      {
        default: 'comfy',
        models: { comfy: { backend: 'comfyui', baseUrl: 'http://gpu:8188', workflowFile: 'docs/backends/comfyui-workflow.json', steps: 20 } },
      },
      {},
      defaults,
    );
    const config = file.entries[0].config as { provider: string; workflow: Record<string, unknown>; steps: number };
    expect(config).toEqual(expect.objectContaining({ provider: 'comfyui', baseUrl: 'http://gpu:8188', steps: 20 }));
    expect(Object.keys(config.workflow).length).toBeGreaterThan(3);
  });

  it('never puts a resolved secret or a bad value in its message', () => {
    const json = { default: 'a', models: { a: { backend: 'openai', apiKey: '${KEY}', baseUrl: '${KEY}' } } };
    let message = '';
    try {
      parseModelsFile(json, { KEY: 'sk-very-secret' }, defaults);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('models.a.baseUrl');
    expect(message).not.toContain('sk-very-secret');
  });

  it('resolves references inside longer strings and in arrays', () => {
    expect(resolveEnvReferences({ a: ['x-${A}-y', 3] }, { A: '1' })).toEqual({ a: ['x-1-y', 3] });
  });
});

describe('MODELS_FILE in loadConfig', () => {
  const dir = mkdtempSync(join(tmpdir(), 'models-file-'));
  const write = (name: string, body: string) => {
    const path = join(dir, name);
    writeFileSync(path, body);
    return path;
  };

  it('without it, the single-model variables define the one default model, named as before', () => {
    const config = loadConfig({ MODEL_PROVIDER: 'openai', OPENAI_MODEL: 'dall-e-3' });
    const registry = createModelRegistry(config.models.entries, config.models.defaultId);
    expect(registry.ids).toEqual(['openai:dall-e-3']);
    expect(config.model).toMatchObject({ provider: 'openai', model: 'dall-e-3' });
  });

  it('with it, the file defines the models and the default model', () => {
    const config = loadConfig({ MODELS_FILE: write('two.json', JSON.stringify(two)), OPENAI_KEY: 'k' });
    const registry = createModelRegistry(config.models.entries, config.models.defaultId);
    expect(registry.ids).toEqual(['gpu', 'hosted']);
    expect(registry.get(undefined)?.id).toBe('gpu');
    expect(config.model).toMatchObject({ provider: 'a1111' });
  });

  it.each([
    ['unreadable', join(dir, 'missing.json'), 'cannot be read'],
    ['not JSON', write('bad.json', '{ "default": '), 'is not valid JSON'],
    ['invalid', write('invalid.json', JSON.stringify({ default: 'a', models: { a: { backend: 'a1111', steps: 0 } } })), 'models.a.steps'],
  ])('a file that is %s fails start-up naming MODELS_FILE', (_name, path, expected) => {
    expect(() => loadConfig({ MODELS_FILE: path })).toThrow(ConfigError);
    expect(() => loadConfig({ MODELS_FILE: path })).toThrow(new RegExp(`MODELS_FILE.*${expected.replace(/\./g, '\\.')}`));
  });

  it('the breaker rules come from MODEL_BREAKER_*; 0 failures turns it off', () => {
    expect(loadConfig({}).models.breaker).toMatchObject({ failures: 3, failureRate: 0.5, windowCalls: 10, windowMs: 600_000, coolOffMs: 30_000 });
    expect(
      loadConfig({ MODEL_BREAKER_FAILURES: '2', MODEL_BREAKER_COOLOFF_MS: '1000', MODEL_BREAKER_FAILURE_RATE: '40', MODEL_BREAKER_WINDOW_CALLS: '20' }).models
        .breaker,
    ).toMatchObject({ failures: 2, coolOffMs: 1000, failureRate: 0.4, windowCalls: 20 });
    expect(loadConfig({ MODEL_BREAKER_FAILURES: '0' }).models.breaker).toBeNull();
  });

  it("each model's limits: its kind's defaults, MODEL_* for every model, the file's own settings over those", () => {
    const file = write(
      'limits.json',
      JSON.stringify({
        default: 'gpu',
        models: {
          gpu: { backend: 'a1111', baseUrl: 'http://gpu:7860', maxInFlight: 4, slowCallMs: 70_000 },
          hosted: { backend: 'openai', apiKey: 'k', timeoutMs: 200_000, maxInFlightPerWorker: 2 },
          sketch: { backend: 'procedural' },
        },
      }),
    );
    const limitsOf = (env: NodeJS.ProcessEnv) => {
      const config = loadConfig(env);
      const registry = createModelRegistry(config.models.entries, config.models.defaultId, undefined, { concurrency: config.worker.concurrency });
      return Object.fromEntries(registry.ids.map((id) => [id, registry.get(id)!.limits]));
    };
    expect(limitsOf({ MODELS_FILE: file })).toEqual({
      gpu: { timeoutMs: 90_000, slowCallMs: 70_000, maxInFlight: 4, maxInFlightPerWorker: 3 },
      hosted: { timeoutMs: 200_000, slowCallMs: 100_000, maxInFlight: 16, maxInFlightPerWorker: 2 },
      sketch: { timeoutMs: null, slowCallMs: null, maxInFlight: null, maxInFlightPerWorker: 3 },
    });
    expect(
      limitsOf({ MODELS_FILE: file, MODEL_TIMEOUT_MS: '60000', MODEL_MAX_IN_FLIGHT: '0', MODEL_MAX_IN_FLIGHT_PER_WORKER: '1', WORKER_CONCURRENCY: '8' }),
    ).toEqual({
      gpu: { timeoutMs: 60_000, slowCallMs: 70_000, maxInFlight: 4, maxInFlightPerWorker: 1 },
      hosted: { timeoutMs: 200_000, slowCallMs: 100_000, maxInFlight: null, maxInFlightPerWorker: 2 },
      sketch: { timeoutMs: null, slowCallMs: null, maxInFlight: null, maxInFlightPerWorker: 1 },
    });
    // One model: every slot of the worker is its own.
    expect(limitsOf({ MODEL_PROVIDER: 'a1111', MODEL_SLOW_CALL_MS: '30000' })).toEqual({
      a1111: { timeoutMs: 90_000, slowCallMs: 30_000, maxInFlight: 2, maxInFlightPerWorker: 4 },
    });
    expect(() =>
      loadConfig({ MODELS_FILE: write('bad-limits.json', JSON.stringify({ default: 'a', models: { a: { backend: 'a1111', maxInFlightPerWorker: 0 } } })) }),
    ).toThrow(/models\.a\.maxInFlightPerWorker/);
  });
});

describe('createModelRegistry', () => {
  it('asks a backend with a size table for the nearest size of it', async () => {
    const asked: Array<[number, number]> = [];
    const registry = createModelRegistry([{ id: 'gpu', config: { provider: 'procedural' }, sizes: ['1024x1024', '1344x768'] }], undefined, () => ({
      name: 'fake',
      generate: async (r) => {
        asked.push([r.width, r.height]);
        return { data: Buffer.alloc(0), width: r.width, height: r.height };
      },
    }));
    await registry.get('gpu')!.model.generate({ prompt: 'p', strength: 1, seed: 1, width: 1920, height: 1088 });
    await registry.get('gpu')!.model.generate({ prompt: 'p', strength: 1, seed: 1, width: 512, height: 512 });
    expect(asked).toEqual([
      [1344, 768],
      [1024, 1024],
    ]);
  });

  it('refuses two models with one id and a fallback that is not served', () => {
    expect(() =>
      createModelRegistry([
        { id: 'a', config: { provider: 'procedural' } },
        { id: 'a', config: { provider: 'procedural' } },
      ]),
    ).toThrow('Two models have the id "a"');
    expect(() => createModelRegistry([{ id: 'a', config: { provider: 'procedural' }, fallback: 'b' }])).toThrow('falls back to "b"');
  });
});
