import sharp from 'sharp';
import { startTestService, type TestService } from '@promptpix/server/testing';
import { dashboardSessionFor, type DashboardTestSession } from '../testing';

const photo = async () =>
  'data:image/png;base64,' +
  (
    await sharp({ create: { width: 64, height: 64, channels: 3, background: { r: 255, g: 0, b: 255 } } })
      .png()
      .toBuffer()
  ).toString('base64');

describe('dashboard characters (embedded)', () => {
  let service: TestService;
  let me: DashboardTestSession;
  let them: DashboardTestSession;

  beforeAll(async () => {
    service = await startTestService('embedded');
    me = await dashboardSessionFor(service, (await service.createAccount({ plan: 'pro' })).handle);
    them = await dashboardSessionFor(service, (await service.createAccount()).handle);
  });
  afterAll(() => service.stop());

  it('creates characters from photos or a spec sheet, lists, patches and deletes them', async () => {
    const fromPhotos = await me.post('/dashboard/api/characters', { name: 'Mika', description: 'mascot', images: [await photo(), await photo()] });
    expect(fromPhotos.status).toBe(201);
    expect(fromPhotos.body).toEqual({
      id: expect.any(String),
      name: 'Mika',
      description: 'mascot',
      specSheet: null,
      behavior: 'match',
      lockedStyle: null,
      lockedFamily: null,
      referenceCount: 2,
      createdAt: expect.any(String),
    });
    const fromSheet = await me.post('/dashboard/api/characters', {
      name: 'Bolt',
      specSheet: 'a small yellow robot',
      behavior: 'lock',
      lockedFamily: 'illustration',
    });
    expect(fromSheet.body).toMatchObject({ specSheet: 'a small yellow robot', behavior: 'lock', lockedFamily: 'illustration', referenceCount: 0 });

    const list = await me.get('/dashboard/api/characters');
    expect(list.body.characters.map((c: { name: string }) => c.name)).toEqual(['Bolt', 'Mika']);

    const patched = await me.patch(`/dashboard/api/characters/${fromSheet.body.id}`, { name: 'Bolt II', lockedStyle: 'watercolor' });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id: fromSheet.body.id, name: 'Bolt II', lockedStyle: 'watercolor', specSheet: 'a small yellow robot' });

    expect((await me.delete(`/dashboard/api/characters/${fromPhotos.body.id}`)).status).toBe(204);
    expect((await me.get('/dashboard/api/characters')).body.characters.map((c: { name: string }) => c.name)).toEqual(['Bolt II']);
  });

  it.each([
    [{ name: 'x', images: ['bm90IGFuIGltYWdl'] }, 'images.0'],
    [{ name: 'x' }, 'images'],
    [{ name: '', specSheet: 'y' }, 'name'],
    [{ name: 'x', specSheet: 'y', lockedFamily: 'cubist' }, 'lockedFamily'],
  ])('a bad character is a 400 naming the field (%j)', async (body, field) => {
    const res = await me.post('/dashboard/api/characters', body);
    expect(res.status).toBe(400);
    expect(res.body.details.fieldErrors[field]).toBeDefined();
  });

  it("another account's character, an unknown or a malformed id is a 404", async () => {
    const mine = (await me.post('/dashboard/api/characters', { name: 'Mine', specSheet: 'a red kite' })).body;
    for (const id of [mine.id, '00000000-0000-4000-8000-000000000000', 'nope']) {
      expect((await them.patch(`/dashboard/api/characters/${id}`, { name: 'stolen' })).status).toBe(404);
      expect((await them.delete(`/dashboard/api/characters/${id}`)).status).toBe(404);
    }
    expect((await them.get('/dashboard/api/characters')).body.characters).toEqual([]);
    expect((await me.get('/dashboard/api/characters')).body.characters.find((c: { id: string }) => c.id === mine.id).name).toBe('Mine');
  });
});
