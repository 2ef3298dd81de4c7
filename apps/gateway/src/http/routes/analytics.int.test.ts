import request from 'supertest';
import { ErrorMessages } from '@promptpix/contracts';
import { SHAPES, startTestService, type TestAccount, type TestService } from '@promptpix/server/testing';

describe.each(SHAPES)('POST /api/v1/analytics/events and the export (%s)', (shape) => {
  let service: TestService;
  let account: TestAccount;

  beforeAll(async () => {
    service = await startTestService(shape, {}, { worker: false });
    account = await service.createAccount();
  });
  afterAll(() => service.stop());

  const send = (body: unknown, key = account.publishableKey) =>
    request(service.baseUrl)
      .post('/api/v1/analytics/events')
      .set('Authorization', `Bearer ${key}`)
      .send(body as object);
  const imageId = '11111111-1111-4111-8111-111111111111';

  it('202 { accepted } at once; the events reach the store in a batch and the export', async () => {
    const events = [
      { eventType: 'impression', imageId, metadata: { page: '/home', note: 'has "quotes", commas' } },
      { eventType: 'click', imageId },
      { eventType: 'heart' },
    ];
    const res = await send({ events });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ accepted: 3 });

    const ndjson = await request(service.baseUrl)
      .get(`/admin/api/v1/accounts/${account.handle}/analytics/export?format=ndjson`)
      .set('Authorization', `Bearer ${service.config.adminToken}`);
    expect(ndjson.status).toBe(200);
    expect(ndjson.headers['content-type']).toMatch(/application\/x-ndjson/);
    const lines = ndjson.text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.eventType).sort()).toEqual(['click', 'heart', 'impression']);
    expect(lines.find((l) => l.eventType === 'impression')).toMatchObject({ imageId, metadata: { page: '/home' } });

    const csv = await request(service.baseUrl)
      .get(`/admin/api/v1/accounts/${account.handle}/analytics/export?format=csv`)
      .set('Authorization', `Bearer ${service.config.adminToken}`);
    expect(csv.headers['content-type']).toMatch(/text\/csv/);
    const rows = csv.text.trim().split('\n');
    expect(rows[0]).toBe('createdAt,eventType,imageId,metadata,id,count');
    expect(rows).toHaveLength(4);
    expect(rows.slice(1).every((r) => r.endsWith(',1'))).toBe(true);
    expect(rows.find((r) => r.includes(',impression,'))).toContain('""page"":""/home""');

    const repeated = await send({ events: Array.from({ length: 3 }, () => ({ eventType: 'impression', imageId, metadata: { page: '/again' } })) });
    expect(repeated.body).toEqual({ accepted: 3 });
    await service.infra.events.flush();
    const again = await request(service.baseUrl)
      .get(`/admin/api/v1/accounts/${account.handle}/analytics/export?format=ndjson`)
      .set('Authorization', `Bearer ${service.config.adminToken}`);
    // Identical events waiting together are stored as one row that counts them.
    const sameThree = again.text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((l) => l.metadata?.page === '/again');
    expect(sameThree).toEqual([expect.objectContaining({ eventType: 'impression', imageId, count: 3 })]);

    const future = await request(service.baseUrl)
      .get(`/admin/api/v1/accounts/${account.handle}/analytics/export?from=2099-01-01`)
      .set('Authorization', `Bearer ${service.config.adminToken}`);
    expect(future.text).toBe('');
  });

  it.each([
    ['an empty array', { events: [] }, 'events'],
    ['101 events', { events: Array.from({ length: 101 }, () => ({ eventType: 'click' })) }, 'events'],
    ['an unknown event type', { events: [{ eventType: 'purchase' }] }, 'events'],
    ['an imageId that is not a uuid', { events: [{ eventType: 'click', imageId: '42' }] }, 'events'],
    ['metadata that is not an object', { events: [{ eventType: 'click', metadata: [1] }] }, 'events'],
    ['no events field', {}, 'events'],
  ])('400 for %s', async (_name, body, field) => {
    const res = await send(body);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(ErrorMessages.invalidRequest);
    expect(res.body.details.fieldErrors[field]).toBeDefined();
  });

  it('accepts exactly 100 events', async () => {
    const res = await send({ events: Array.from({ length: 100 }, () => ({ eventType: 'impression' })) });
    expect(res.body).toEqual({ accepted: 100 });
  });

  it('401 without a key, 403 for a suspended account', async () => {
    expect(
      (
        await request(service.baseUrl)
          .post('/api/v1/analytics/events')
          .send({ events: [{ eventType: 'click' }] })
      ).status,
    ).toBe(401);
    const suspended = await service.createAccount({ status: 'suspended' });
    expect((await send({ events: [{ eventType: 'click' }] }, suspended.publishableKey)).status).toBe(403);
  });

  it('has its own rate-limit bucket: 429 with Rate limit exceeded', async () => {
    const free = await service.createAccount();
    for (let i = 0; i < 30; i++) expect((await send({ events: [{ eventType: 'click' }] }, free.publishableKey)).status).toBe(202);
    const limited = await send({ events: [{ eventType: 'click' }] }, free.publishableKey);
    expect(limited.status).toBe(429);
    expect(limited.body.error).toBe('Rate limit exceeded');
    // The generate/embed bucket is untouched.
    const embed = await request(service.baseUrl)
      .post('/api/v1/embed/resolve')
      .set('Authorization', `Bearer ${free.publishableKey}`)
      .send({ elements: [{ id: 'a', shortcut: 'x' }] });
    expect(embed.status).toBe(200);
  });

  it('a store failure drops the batch but the caller still gets 202', async () => {
    const before = service.logs.length;
    await service.infra.db.prisma.$executeRawUnsafe(
      `CREATE OR REPLACE FUNCTION promptpix_test_fail() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'store down'; END $$ LANGUAGE plpgsql`,
    );
    await service.infra.db.prisma.$executeRawUnsafe(
      `CREATE TRIGGER promptpix_test_fail_events BEFORE INSERT ON "AnalyticsEvent" FOR EACH ROW EXECUTE FUNCTION promptpix_test_fail()`,
    );
    try {
      const res = await send({ events: [{ eventType: 'click', metadata: { marker: 'dropped' } }] });
      expect(res.status).toBe(202);
      expect(res.body).toEqual({ accepted: 1 });
      await service.infra.events.flush();
      expect(service.logs.slice(before).join('')).toContain('analytics events dropped');
    } finally {
      await service.infra.db.prisma.$executeRawUnsafe(`DROP TRIGGER promptpix_test_fail_events ON "AnalyticsEvent"`);
    }
    expect(await service.infra.db.prisma.analyticsEvent.count({ where: { metadata: { path: ['marker'], equals: 'dropped' } } })).toBe(0);
  });
});
