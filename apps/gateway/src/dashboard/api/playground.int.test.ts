import request from 'supertest';
import { SHAPES, startTestService, type TestAccount, type TestService } from '@promptpix/server/testing';
import { dashboardSessionFor, type DashboardTestSession } from '../testing';

/** The `data` of each `status` event of a finished stream. */
const statusEvents = (text: string) =>
  text
    .split('\n\n')
    .filter((frame) => frame.includes('event: status'))
    .map((frame) =>
      JSON.parse(
        frame
          .split('\n')
          .find((line) => line.startsWith('data: '))!
          .slice(6),
      ),
    );

describe.each(SHAPES)('dashboard playground (%s)', (shape) => {
  let service: TestService;
  let account: TestAccount;
  let me: DashboardTestSession;

  beforeAll(async () => {
    service = await startTestService(shape, { LIBRARY_DELAY_SECONDS: '0' });
    account = await service.createAccount();
    me = await dashboardSessionFor(service, account.handle);
  });
  afterAll(() => service.stop());

  it('generates as POST /api/v1/generate does: a job whose progress streams to completion, one quota unit, a cache hit the second time', async () => {
    const body = { prompt: 'a playground lantern', style: 'watercolor', width: 512, height: 384, format: 'png', seed: 7, negativePrompt: 'text' };
    const first = await me.post('/dashboard/api/playground', body);
    expect(first.status).toBe(202);
    expect(first.body).toEqual({ mode: 'generate', jobId: expect.any(String), quota: { used: 1, limit: 100, resetAt: expect.any(String) } });
    expect(first.headers['x-ratelimit-limit']).toBe('30');

    const stream = await me
      .get(`/dashboard/api/jobs/${first.body.jobId}/events`)
      .buffer(true)
      .parse((res, done) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk));
        res.on('end', () => done(null, text));
      });
    expect(stream.headers['content-type']).toMatch(/^text\/event-stream/);
    const events = statusEvents(stream.body as string);
    const last = events.at(-1);
    expect(last).toMatchObject({ jobId: first.body.jobId, status: 'completed', seed: 7, imageUrl: expect.stringMatching(/\.png$/) });

    // The image is the account's, as the public API sees it.
    const viaPublic = await request(service.baseUrl).get(`/api/v1/job/${first.body.jobId}`).set('Authorization', `Bearer ${account.secretKey}`);
    expect(viaPublic.body.imageId).toBe(last.imageId);
    const detail = await me.get(`/dashboard/api/images/${last.imageId}`);
    expect(detail.body).toMatchObject({
      prompt: 'a playground lantern',
      style: 'watercolor',
      width: 512,
      height: 384,
      format: 'png',
      seed: '7',
      negativePrompt: 'text',
    });

    const again = await me.post('/dashboard/api/playground', body);
    expect(again.status).toBe(202);
    expect(again.body.quota.used).toBe(1);
    expect((await service.waitForJob(again.body.jobId, account.secretKey)).imageId).toBe(last.imageId);
    expect((await me.get('/dashboard/api/usage')).body.quota.used).toBe(1);
  });

  it('answers instant mode with the closest library image at once, free', async () => {
    // The lantern above is in the library at once (LIBRARY_DELAY_SECONDS=0).
    const res = await me.post('/dashboard/api/playground', { prompt: 'a playground lantern', style: 'watercolor', mode: 'instant' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      mode: 'instant',
      status: 'completed',
      imageUrl: expect.any(String),
      imageId: expect.any(String),
      match: 'exact',
      matchScore: 1,
    });
    expect((await me.get('/dashboard/api/usage')).body.quota.used).toBe(1);
    const nothing = await me.post('/dashboard/api/playground', { prompt: 'zzzz qqqq xxxx', mode: 'instant' });
    expect(nothing.status).toBe(404);
  });

  it.each([
    [{}, 'prompt'],
    [{ prompt: '   ' }, 'prompt'],
    [{ prompt: 'x', width: 100 }, 'width'],
    [{ prompt: 'x', format: 'gif' }, 'format'],
    [{ prompt: 'x', style: 'no-such-style' }, 'style'],
    [{ prompt: 'x', seed: -1 }, 'seed'],
    [{ prompt: 'a knight with a bloody sword', ageBuckets: ['kids'] }, 'prompt'],
  ])('a bad body is a 400 naming the field (%j)', async (body, field) => {
    const res = await me.post('/dashboard/api/playground', body);
    expect(res.status).toBe(400);
    expect(res.body.details.fieldErrors[field]).toBeDefined();
  });

  it('stops at the quota with the public 402, and past the plan rate limit with a 429', async () => {
    const capped = await service.createAccount({ monthlyGenerations: 1 });
    const session = await dashboardSessionFor(service, capped.handle);
    expect((await session.post('/dashboard/api/playground', { prompt: 'the one I may make' })).status).toBe(202);
    const over = await session.post('/dashboard/api/playground', { prompt: 'one more than I may' });
    expect(over.status).toBe(402);
    expect(over.body).toMatchObject({ error: 'Generation quota exceeded', used: 1, limit: 1 });

    // The free plan's 30 a minute, in the account's own bucket: every request counts, a 400 included.
    let answer = over;
    for (let i = 0; i < 30 && answer.status !== 429; i++) answer = await session.post('/dashboard/api/playground', {});
    expect(answer.status).toBe(429);
    expect(answer.body.error).toBe('Rate limit exceeded');
    expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
    // A key of the same account has its own bucket, as each key does.
    const viaKey = await request(service.baseUrl).post('/api/v1/generate').set('Authorization', `Bearer ${capped.secretKey}`).send({});
    expect(viaKey.status).toBe(400);
  });

  it("streams only the account's own jobs, and only to a signed-in browser", async () => {
    const other = await service.createAccount();
    const started = await request(service.baseUrl).post('/api/v1/generate').set('Authorization', `Bearer ${other.secretKey}`).send({ prompt: 'not yours' });
    expect((await me.get(`/dashboard/api/jobs/${started.body.jobId}/events`)).status).toBe(404);
    expect((await me.get('/dashboard/api/jobs/not-a-job/events')).status).toBe(404);
    expect((await request(service.baseUrl).get(`/dashboard/api/jobs/${started.body.jobId}/events`)).status).toBe(401);
    expect((await request(service.baseUrl).post('/dashboard/api/playground').send({ prompt: 'x' })).status).toBe(401);
  });
});
