import request from 'supertest';
import { STYLE_PRESETS, tierAllows } from '@promptpix/core';
import { startTestService, type TestAccount, type TestService } from '@promptpix/server/testing';
import { dashboardSessionFor, type DashboardTestSession } from '../testing';

describe('dashboard styles (embedded)', () => {
  let service: TestService;
  let account: TestAccount;
  let me: DashboardTestSession;
  let them: DashboardTestSession;

  beforeAll(async () => {
    service = await startTestService('embedded');
    account = await service.createAccount({ plan: 'free' });
    me = await dashboardSessionFor(service, account.handle);
    them = await dashboardSessionFor(service, (await service.createAccount()).handle);
  });
  afterAll(() => service.stop());

  it("lists every preset, locked exactly where the public API refuses it, with the account's own styles and the families", async () => {
    const res = await me.get('/dashboard/api/styles');
    expect(res.status).toBe(200);
    expect(res.body.presets).toHaveLength(STYLE_PRESETS.length);
    expect(res.body.presets[0]).toEqual({
      id: expect.any(String),
      name: expect.any(String),
      description: expect.anything(),
      tags: expect.any(Array),
      category: expect.any(String),
      tier: expect.any(String),
      previewUrl: null,
      locked: expect.any(Boolean),
    });
    for (const p of res.body.presets) expect(p.locked).toBe(!tierAllows('free', p.tier));
    expect(res.body.visualFamilies).toContain('illustration');
    expect(res.body.own).toEqual([]);

    const locked = res.body.presets.find((p: { locked: boolean }) => p.locked);
    const open = res.body.presets.find((p: { locked: boolean }) => !p.locked);
    const generate = (style: string) =>
      request(service.baseUrl)
        .post('/api/v1/generate')
        .set('Authorization', `Bearer ${account.secretKey}`)
        .send({ prompt: 'x', style, width: 256, height: 256 });
    expect((await generate(locked.id)).status).toBe(403);
    expect((await generate(open.id)).status).toBe(202);
  });

  it('creates, patches and deletes own styles; they can be generated with', async () => {
    const created = await me.post('/dashboard/api/styles', {
      name: 'House look',
      tags: ['brand'],
      baseStyle: 'watercolor',
      promptTemplate: '{prompt}, pastel',
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      name: 'House look',
      description: null,
      tags: ['brand'],
      baseStyle: 'watercolor',
      promptTemplate: '{prompt}, pastel',
      createdAt: expect.any(String),
    });
    const patched = await me.patch(`/dashboard/api/styles/${created.body.id}`, { description: 'ours' });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: 'House look', description: 'ours', tags: ['brand'] });
    expect((await me.get('/dashboard/api/styles')).body.own.map((s: { id: string }) => s.id)).toEqual([created.body.id]);
    const generated = await request(service.baseUrl)
      .post('/api/v1/generate')
      .set('Authorization', `Bearer ${account.secretKey}`)
      .send({ prompt: 'x', style: created.body.id, width: 256, height: 256 });
    expect(generated.status).toBe(202);
    expect((await me.delete(`/dashboard/api/styles/${created.body.id}`)).status).toBe(204);
    expect((await me.get('/dashboard/api/styles')).body.own).toEqual([]);
  });

  it.each([
    [{ name: '' }, 'name'],
    [{ name: 'x', baseStyle: 'no-such-preset' }, 'baseStyle'],
    [{ name: 'x', promptTemplate: 'no placeholder' }, 'promptTemplate'],
  ])('a bad style is a 400 naming the field (%j)', async (body, field) => {
    const res = await me.post('/dashboard/api/styles', body);
    expect(res.status).toBe(400);
    expect(res.body.details.fieldErrors[field]).toBeDefined();
  });

  it("another account's style, an unknown or a malformed id is a 404", async () => {
    const mine = (await me.post('/dashboard/api/styles', { name: 'Mine' })).body;
    for (const id of [mine.id, '00000000-0000-4000-8000-000000000000', 'nope']) {
      expect((await them.patch(`/dashboard/api/styles/${id}`, { name: 'stolen' })).status).toBe(404);
      expect((await them.delete(`/dashboard/api/styles/${id}`)).status).toBe(404);
    }
    expect((await me.get('/dashboard/api/styles')).body.own[0].name).toBe('Mine');
  });
});
