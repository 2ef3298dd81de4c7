import request from 'supertest';
import { ErrorMessages } from '@promptpix/contracts';
import { SHAPES, startTestService, type TestAccount, type TestService } from '@promptpix/server/testing';

describe.each(SHAPES)('image flags: pin, unpin, reject (%s)', (shape) => {
  let service: TestService;
  let account: TestAccount;

  beforeAll(async () => {
    service = await startTestService(shape);
    account = await service.createAccount({ plan: 'business' });
  });
  afterAll(() => service.stop());

  const api = (method: 'patch' | 'delete' | 'get', path: string, key = account.secretKey) =>
    request(service.baseUrl)[method](path).set('Authorization', `Bearer ${key}`).redirects(0);
  const makeImage = async (prompt: string) => {
    const res = await request(service.baseUrl)
      .post('/api/v1/generate')
      .set('Authorization', `Bearer ${account.secretKey}`)
      .send({ prompt, width: 256, height: 256 });
    return (await service.waitForJob(res.body.jobId, account.secretKey)) as { imageId: string; imageUrl: string };
  };
  const record = (id: string) => service.infra.db.prisma.image.findUnique({ where: { id } });
  const permalink = async (name: string, imageIds: string[]) => {
    const res = await service.admin('POST', `/admin/api/v1/accounts/${account.handle}/permalinks`, { name, imageIds });
    expect(res.status).toBe(201);
    return res.body.url as string;
  };

  it('PATCH pin → { id, pinned: true }; DELETE pin → { id, pinned: false }', async () => {
    const { imageId } = await makeImage('a pinned teapot');
    const pinned = await api('patch', `/api/v1/image/${imageId}/pin`);
    expect(pinned.status).toBe(200);
    expect(pinned.body).toEqual({ id: imageId, pinned: true });
    expect((await record(imageId))?.pinned).toBe(true);
    const unpinned = await api('delete', `/api/v1/image/${imageId}/pin`);
    expect(unpinned.body).toEqual({ id: imageId, pinned: false });
    expect((await record(imageId))?.pinned).toBe(false);
  });

  it('reject → { id, rejected: true }: unpinned, unhooked from its permalink, out of the render cache, record and file kept', async () => {
    const first = await makeImage('a rejected lantern');
    const other = await makeImage('another lantern');
    const url = await permalink('lanterns', [first.imageId, other.imageId]);
    await api('patch', `/api/v1/image/${first.imageId}/pin`);
    expect((await fetch(url, { redirect: 'manual' })).headers.get('location')).toBe(first.imageUrl);

    const rejected = await api('patch', `/api/v1/image/${first.imageId}/reject`);
    expect(rejected.status).toBe(200);
    expect(rejected.body).toEqual({ id: first.imageId, rejected: true });
    const row = await record(first.imageId);
    expect(row).toMatchObject({ rejected: true, pinned: false });
    // Unhooked: the permalink serves only the other image now.
    for (let i = 0; i < 3; i++) expect((await fetch(url, { redirect: 'manual' })).headers.get('location')).toBe(other.imageUrl);
    // The file stays.
    expect((await fetch(first.imageUrl)).status).toBe(200);
    // The next request for that prompt makes a fresh image.
    const calls = service.modelCalls();
    const again = await request(service.baseUrl)
      .post('/api/v1/generate')
      .set('Authorization', `Bearer ${account.secretKey}`)
      .send({ prompt: 'a rejected lantern', width: 256, height: 256 });
    const fresh = await service.waitForJob(again.body.jobId, account.secretKey);
    expect(fresh.imageId).not.toBe(first.imageId);
    expect(service.modelCalls()).toBe(calls + 1);
  });

  it('pin after reject clears the rejection', async () => {
    const { imageId } = await makeImage('a second chance');
    await api('patch', `/api/v1/image/${imageId}/reject`);
    const res = await api('patch', `/api/v1/image/${imageId}/pin`);
    expect(res.body).toEqual({ id: imageId, pinned: true });
    expect(await record(imageId)).toMatchObject({ pinned: true, rejected: false });
  });

  it('pin records a pin event and reject a reject event', async () => {
    const { imageId } = await makeImage('an evented image');
    await api('patch', `/api/v1/image/${imageId}/pin`);
    await api('patch', `/api/v1/image/${imageId}/reject`);
    const events = await service.storedEvents({ imageId }, 3);
    expect(events.map((e) => e.eventType)).toEqual(expect.arrayContaining(['generate', 'pin', 'reject']));
  });

  it("another account's image, an unknown id or a malformed id is 404, never 403", async () => {
    const { imageId } = await makeImage('not yours');
    const other = await service.createAccount();
    for (const [method, path, key] of [
      ['patch', `/api/v1/image/${imageId}/pin`, other.secretKey],
      ['delete', `/api/v1/image/${imageId}/pin`, other.secretKey],
      ['patch', `/api/v1/image/${imageId}/reject`, other.secretKey],
      ['patch', '/api/v1/image/00000000-0000-4000-8000-000000000000/pin', account.secretKey],
      ['patch', "/api/v1/image/x'%3B--/reject", account.secretKey],
    ] as const) {
      const res = await api(method, path, key);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: ErrorMessages.imageNotFound });
    }
    expect(await record(imageId)).toMatchObject({ pinned: false, rejected: false });
  });

  it('401 without a key, 403 for a publishable key', async () => {
    const { imageId } = await makeImage('keyed');
    expect((await request(service.baseUrl).patch(`/api/v1/image/${imageId}/pin`)).status).toBe(401);
    const res = await api('patch', `/api/v1/image/${imageId}/pin`, account.publishableKey);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: ErrorMessages.publishableForbidden });
  });

  it('a failed write is a 500 that changes nothing', async () => {
    const { imageId } = await makeImage('a doomed write');
    const url = await permalink('doomed', [imageId]);
    // A real database fault in the middle of the transaction: unhooking from the permalink fails.
    await service.infra.db.prisma.$executeRawUnsafe(
      `CREATE OR REPLACE FUNCTION promptpix_test_fail() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'disk full'; END $$ LANGUAGE plpgsql`,
    );
    await service.infra.db.prisma.$executeRawUnsafe(
      `CREATE TRIGGER promptpix_test_fail BEFORE DELETE ON "PermalinkImage" FOR EACH ROW EXECUTE FUNCTION promptpix_test_fail()`,
    );
    try {
      const res = await api('patch', `/api/v1/image/${imageId}/reject`);
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ error: ErrorMessages.internal });
      expect(await record(imageId)).toMatchObject({ rejected: false, pinned: false });
      expect((await fetch(url, { redirect: 'manual' })).status).toBe(302);
    } finally {
      await service.infra.db.prisma.$executeRawUnsafe(`DROP TRIGGER promptpix_test_fail ON "PermalinkImage"`);
    }
  });
});
