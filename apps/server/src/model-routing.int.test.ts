/**
 * Several models at once (docs/operating/models.md), on both adapter sets: MODELS_FILE names a
 * hosted OpenAI-compatible default and two AUTOMATIC1111 backends (protocol fakes), one with a
 * fallback. A job reaches the backend of the model it names; a backend answering 500 opens its
 * circuit breaker, after which its jobs fail fast with a 502 (or go to the fallback), ready and
 * /metrics say it is down, and one trial job after the cool-off closes it again.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  startFakeA1111,
  startFakeOpenAI,
  times,
  type FakeA1111Behaviour,
  type FakeOpenAIBehaviour,
  type FakeProviderServer,
} from '@promptpix/testing/fake-providers';
import { SHAPES, startTestService, type TestAccount, type TestService } from './testing';
import { until } from '@promptpix/testing';

jest.setTimeout(90_000);

const COOL_OFF_MS = 5000;

describe.each(SHAPES)('routing by model id (%s)', (shape) => {
  let hosted: FakeProviderServer<FakeOpenAIBehaviour>;
  let gpu: FakeProviderServer<FakeA1111Behaviour>;
  let lab: FakeProviderServer<FakeA1111Behaviour>;
  let service: TestService;
  let account: TestAccount;

  beforeAll(async () => {
    [hosted, gpu, lab] = await Promise.all([startFakeOpenAI(), startFakeA1111(), startFakeA1111()]);
    const dir = mkdtempSync(join(tmpdir(), 'models-'));
    const file = join(dir, 'models.json');
    writeFileSync(
      file,
      JSON.stringify({
        default: 'hosted',
        models: {
          hosted: { backend: 'openai', baseUrl: hosted.url, apiKey: '${ROUTING_TEST_KEY}', model: 'gpt-image-1' },
          gpu: { backend: 'a1111', baseUrl: gpu.url, steps: 4, fallback: 'hosted' },
          lab: { backend: 'a1111', baseUrl: lab.url, sizes: ['512x512'] },
        },
      }),
    );
    service = await startTestService(shape, {
      MODELS_FILE: file,
      ROUTING_TEST_KEY: 'sk-routing-test',
      MODEL_HTTP_ATTEMPTS: '1',
      MODEL_BREAKER_FAILURES: '2',
      MODEL_BREAKER_COOLOFF_MS: String(COOL_OFF_MS),
    });
    account = await service.createAccount({ plan: 'pro' });
  });
  afterAll(async () => {
    await service?.stop();
    await Promise.all([hosted?.stop(), gpu?.stop(), lab?.stop()]);
  });

  const api = (path: string, init: RequestInit = {}) =>
    fetch(service.baseUrl + path, { ...init, headers: { authorization: `Bearer ${account.secretKey}`, 'content-type': 'application/json', ...init.headers } });
  const generate = async (body: Record<string, unknown>) => {
    const response = await api('/api/v1/generate', { method: 'POST', body: JSON.stringify(body) });
    return { status: response.status, body: (await response.json()) as any };
  };
  const generated = async (body: Record<string, unknown>) => {
    const started = await generate(body);
    expect(started.status).toBe(202);
    return service.waitForJob(started.body.jobId, account.secretKey);
  };
  const status = async () => (await (await fetch(`${service.baseUrl}/api/status`)).json()) as any;
  const apiRequests = (fake: FakeProviderServer<never> | FakeProviderServer<FakeA1111Behaviour> | FakeProviderServer<FakeOpenAIBehaviour>) =>
    fake.requests.filter((r) => r.method === 'POST').length;

  it('lists the models, sends each job to the backend of the model it names, and keeps their images apart in the cache', async () => {
    const list = await (await api('/v1/models')).json();
    expect(list.data.map((m: { id: string }) => m.id)).toEqual(['hosted', 'gpu', 'lab']);

    const onDefault = await generated({ prompt: 'a red kite over the dunes' });
    expect(onDefault.status).toBe('completed');
    expect(apiRequests(hosted)).toBe(1);
    expect(hosted.requests[0].headers.authorization).toBe('Bearer sk-routing-test');

    const onLab = await generated({ prompt: 'a red kite over the dunes', model: 'lab', width: 1024, height: 576 });
    expect(onLab.status).toBe('completed');
    expect(onLab.imageId).not.toBe(onDefault.imageId);
    expect(apiRequests(lab)).toBe(1);
    // Asked at the nearest size of its table; the stored image has the size asked for.
    expect(lab.requests[0].json).toMatchObject({ prompt: expect.stringContaining('a red kite'), width: 512, height: 512 });
    expect(await service.infra.jobStore.get(onLab.jobId)).toMatchObject({ model: 'lab', request: { model: 'lab' } });
    expect((await service.infra.images.findById(onLab.imageId))?.model).toBe('lab');

    // The same request again is a cache hit of each model's own image; naming the default is the default.
    const again = await generated({ prompt: 'a red kite over the dunes', model: 'lab', width: 1024, height: 576 });
    expect(again.imageId).toBe(onLab.imageId);
    const namedDefault = await generated({ prompt: 'a red kite over the dunes', model: 'hosted' });
    expect(namedDefault.imageId).toBe(onDefault.imageId);
    expect([apiRequests(hosted), apiRequests(lab)]).toEqual([1, 1]);

    const v1 = await api('/v1/images/generations', { method: 'POST', body: JSON.stringify({ model: 'lab', prompt: 'a lighthouse', size: '1024x1024' }) });
    expect(v1.status).toBe(200);
    expect(apiRequests(lab)).toBe(2);
  });

  it('refuses a model it does not serve with a 400 naming `model`, on every surface', async () => {
    const native = await generate({ prompt: 'a cat', model: 'sdxl-nowhere' });
    expect(native.status).toBe(400);
    expect(native.body.details.fieldErrors.model).toEqual([expect.stringContaining('Unknown model')]);
    const render = await api(`/api/v1/render?prompt=cat&model=sdxl-nowhere`, { redirect: 'manual' });
    expect(render.status).toBe(400);
    expect(((await render.json()) as any).details.fieldErrors.model).toBeDefined();
    const v1 = await api('/v1/images/generations', { method: 'POST', body: JSON.stringify({ model: 'sdxl-nowhere', prompt: 'a cat' }) });
    expect(v1.status).toBe(400);
    expect(((await v1.json()) as any).error).toMatchObject({ param: 'model', code: 'model_not_found' });
  });

  it('opens the breaker of a failing backend: its jobs fail fast with 502, /api/status and /metrics say so (the gateway stays ready), and a trial after the cool-off closes it', async () => {
    lab.setBehaviour({ failures: times(50, { status: 500 }) });
    const first = await generated({ prompt: 'a broken lab job', model: 'lab' });
    expect(first.status).toBe('failed');
    // Two failures opened the breaker; the third attempt did not reach the backend.
    const labCalls = apiRequests(lab);
    expect((await status()).models).toMatchObject({ hosted: 'up', gpu: 'up', lab: 'down' });
    expect((await fetch(`${service.baseUrl}/api/ready`)).status).toBe(200);
    const metrics = await (await fetch(`${service.baseUrl}/metrics`)).text();
    expect(metrics).toContain('promptpix_model_backend{model="lab",state="down"} 1');
    expect(metrics).toContain('promptpix_model_backend{model="hosted",state="up"} 1');

    const render = await api(`/api/v1/render?prompt=${encodeURIComponent('another lab job')}&model=lab`, { redirect: 'manual' });
    expect(render.status).toBe(502);
    expect(((await render.json()) as any).error).toContain('"lab" is unavailable');
    expect(apiRequests(lab)).toBe(labCalls);

    // Recovered: after the cool-off one trial job goes through and closes the breaker.
    lab.setBehaviour({});
    await until(status, (r) => r.models?.lab === 'probing', 'the cool-off to pass', COOL_OFF_MS + 10_000);
    const trial = await generated({ prompt: 'a lab job after the outage', model: 'lab' });
    expect(trial.status).toBe('completed');
    expect(apiRequests(lab)).toBe(labCalls + 1);
    expect((await status()).models.lab).toBe('up');
  });

  it("sends a down model's jobs to its fallback, and records that on the job", async () => {
    gpu.setBehaviour({ failures: times(50, { status: 500 }) });
    const hostedBefore = apiRequests(hosted);
    const first = await generated({ prompt: 'a gpu job while it breaks', model: 'gpu' });
    // Two failures opened the breaker; the job's last attempt went to the fallback.
    expect(first.status).toBe('completed');
    expect(apiRequests(gpu)).toBe(2);
    expect(await service.infra.jobStore.get(first.jobId)).toMatchObject({ model: 'hosted', fallbackFrom: 'gpu', request: { model: 'gpu' } });
    // Stored as the default model's image, so once the GPU is back it makes its own.
    expect((await service.infra.images.findById(first.imageId))?.model).toBeNull();
    const second = await generated({ prompt: 'a gpu job while it is down', model: 'gpu' });
    expect(second.status).toBe('completed');
    expect(apiRequests(gpu)).toBe(2);
    expect(apiRequests(hosted)).toBe(hostedBefore + 2);
    expect((await status()).models.gpu).toBe('down');
    gpu.setBehaviour({});
  });
});
