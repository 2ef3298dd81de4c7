import request from 'supertest';
import { STYLE_PRESETS } from '@promptpix/core';
import { SHAPES, startTestService, type TestAccount, type TestService } from '@promptpix/server/testing';

const FREE = ['photorealistic', 'cinematic', 'modern-illustration', 'cartoon', 'watercolor'];

describe.each(SHAPES)('styles (%s)', (shape) => {
  let service: TestService;
  let free: TestAccount;
  let pro: TestAccount;

  beforeAll(async () => {
    service = await startTestService(shape);
    free = await service.createAccount();
    pro = await service.createAccount({ plan: 'pro' });
  });
  afterAll(() => service.stop());

  const list = (key: string) => request(service.baseUrl).get('/api/v1/styles').set('Authorization', `Bearer ${key}`);
  const generate = (key: string, body: object) => request(service.baseUrl).post('/api/v1/generate').set('Authorization', `Bearer ${key}`).send(body);

  it('previews are rendered by the configured model at start and listed as previewUrl', async () => {
    const withPreviews = await startTestService(shape, { STYLE_PREVIEWS: 'on' }, { worker: false });
    try {
      await withPreviews.stylePreviews!.ready;
      const res = await request(withPreviews.baseUrl).get('/api/v1/styles/public');
      const urls = res.body.styles.map((s: { previewUrl: string | null }) => s.previewUrl);
      expect(urls.every((u: string | null) => typeof u === 'string')).toBe(true);
      const file = await fetch(urls[0]);
      expect(file.status).toBe(200);
      expect(file.headers.get('content-type')).toBe('image/webp');
    } finally {
      await withPreviews.stop();
    }
  });

  it('GET /api/v1/styles/public: every preset with category, tier and previewUrl, no key, cached an hour (a day stale)', async () => {
    const res = await request(service.baseUrl).get('/api/v1/styles/public');
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(res.body.styles.length);
    expect(res.body.count).toBeGreaterThanOrEqual(20);
    expect(res.headers['cache-control']).toBe('public, max-age=3600, stale-while-revalidate=86400');
    for (const s of res.body.styles) {
      expect(Object.keys(s).sort()).toEqual(['category', 'description', 'id', 'name', 'previewUrl', 'tags', 'tier']);
      expect(['photo', 'illustration', 'artistic', 'technical', 'fantasy', 'general']).toContain(s.category);
      expect(['free', 'starter', 'pro', 'business']).toContain(s.tier);
    }
    expect(
      res.body.styles
        .filter((s: { tier: string }) => s.tier === 'free')
        .map((s: { id: string }) => s.id)
        .sort(),
    ).toEqual([...FREE].sort());
  });

  it('GET /api/v1/styles: own styles first, then the presets the plan allows, with the keyed fields', async () => {
    const created = await service.admin('POST', `/admin/api/v1/accounts/${free.handle}/styles`, {
      name: 'House look',
      description: 'Our brand',
      tags: ['brand'],
      baseStyle: 'watercolor',
    });
    expect(created.status).toBe(201);
    const res = await list(free.publishableKey);
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('private, max-age=3600, stale-while-revalidate=86400');
    expect(res.body.styles[0]).toEqual({ id: created.body.id, name: 'House look', description: 'Our brand', tags: ['brand'], isPreset: false });
    const presets = res.body.styles.slice(1);
    expect(presets.every((s: { isPreset: boolean }) => s.isPreset)).toBe(true);
    expect(presets.map((s: { id: string }) => s.id).sort()).toEqual([...FREE].sort());
    expect(Object.keys(presets[0]).sort()).toEqual(['description', 'id', 'isPreset', 'name', 'tags']);
    const proList = await list(pro.secretKey);
    expect(proList.body.styles.length).toBeGreaterThan(FREE.length);
    expect(proList.body.styles.some((s: { id: string }) => s.id === created.body.id)).toBe(false);
  });

  it('when own styles cannot be read: 200 with presets alone, never a 500', async () => {
    await service.infra.db.prisma.$executeRawUnsafe('ALTER TABLE "Style" RENAME TO "StyleGone"');
    try {
      const res = await list(free.secretKey);
      expect(res.status).toBe(200);
      expect(res.body.styles.map((s: { id: string }) => s.id).sort()).toEqual([...FREE].sort());
    } finally {
      await service.infra.db.prisma.$executeRawUnsafe('ALTER TABLE "StyleGone" RENAME TO "Style"');
    }
  });

  it('a style above the plan is a 403 with a clear message; an unknown style a 400 naming the field', async () => {
    const business = STYLE_PRESETS.find((p) => p.tier === 'business')!;
    const above = await generate(free.secretKey, { prompt: 'x', style: business.id });
    expect(above.status).toBe(403);
    expect(above.body.error).toBe(`The style "${business.id}" needs the business plan or higher`);
    const unknown = await generate(free.secretKey, { prompt: 'x', style: 'no-such-style' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.details.fieldErrors.style).toBeDefined();
    const othersOwn = await service.admin('POST', `/admin/api/v1/accounts/${pro.handle}/styles`, { name: 'Not yours' });
    expect((await generate(free.secretKey, { prompt: 'x', style: othersOwn.body.id })).status).toBe(400);
    const render = await request(service.baseUrl).get(`/api/v1/render?prompt=x&style=${business.id}&key=${free.secretKey}`);
    expect(render.status).toBe(403);
    const embed = await request(service.baseUrl)
      .post('/api/v1/embed/resolve')
      .set('Authorization', `Bearer ${free.publishableKey}`)
      .send({ elements: [{ id: 'a', prompt: 'x', style: 'no-such-style' }] });
    expect(embed.body.results[0]).toEqual({ id: 'a', status: 'failed', error: expect.stringContaining('style') });
  });

  it('a generation with a style (own or preset) records style_applied', async () => {
    const own = await service.admin('POST', `/admin/api/v1/accounts/${free.handle}/styles`, { name: 'Cartoonish', baseStyle: 'cartoon' });
    for (const style of ['watercolor', own.body.id]) {
      const res = await generate(free.secretKey, { prompt: `a styled kettle ${style}`, style, width: 256, height: 256 });
      expect(res.status).toBe(202);
      const job = await service.waitForJob(res.body.jobId, free.secretKey);
      const events = await service.storedEvents({ imageId: job.imageId, eventType: 'style_applied' });
      expect(events).toHaveLength(1);
      expect(events[0].metadata).toEqual({ style });
    }
  });

  it('the operator API validates own styles', async () => {
    const bad = await service.admin('POST', `/admin/api/v1/accounts/${free.handle}/styles`, { name: 'x', baseStyle: 'nope', promptTemplate: 'no placeholder' });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.details.fieldErrors).sort()).toEqual(['baseStyle', 'promptTemplate']);
  });
});
