import request from 'supertest';
import { SHAPES, startTestService, type TestAccount, type TestService } from '@promptpix/server/testing';

describe.each(SHAPES)('instant mode and the shared library (%s)', (shape) => {
  let service: TestService;
  let account: TestAccount;

  beforeAll(async () => {
    service = await startTestService(shape, { LIBRARY_DELAY_SECONDS: '0' });
    account = await service.createAccount({ plan: 'business', monthlyGenerations: 0 });
  });
  afterAll(() => service.stop());

  const instant = (body: object) =>
    request(service.baseUrl)
      .post('/api/v1/generate')
      .set('Authorization', `Bearer ${account.secretKey}`)
      .send({ ...body, mode: 'instant' });

  it('404 while the library is empty', async () => {
    const res = await instant({ prompt: 'a lighthouse on a rocky coast at sunset' });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'No library image is close enough' });
  });

  it('library seed fills an empty library once', async () => {
    const seeded = await service.admin('POST', '/admin/api/v1/library/seed');
    expect(seeded.status).toBe(201);
    expect(seeded.body.seeded).toBeGreaterThanOrEqual(20);
    const again = await service.admin('POST', '/admin/api/v1/library/seed');
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ seeded: 0, existing: seeded.body.seeded });
  });

  it('exact: same prompt and style, score 1, an account-owned image id; free of quota on an account with none left', async () => {
    const res = await instant({ prompt: '  a lighthouse on a rocky coast   at sunset', style: 'watercolor' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: 'completed',
      imageUrl: expect.stringMatching(/^http/),
      imageId: expect.any(String),
      match: 'exact',
      matchScore: 1,
      poolImageId: expect.any(String),
    });
    expect(res.body.imageId).not.toBe(res.body.poolImageId);
    expect(res.headers['x-quota-used']).toBeUndefined();
    // The image id belongs to the caller: the image endpoint redirects to the same file.
    const owned = await request(service.baseUrl).get(`/api/v1/image/${res.body.imageId}`).set('Authorization', `Bearer ${account.secretKey}`).redirects(0);
    expect(owned.status).toBe(302);
    expect(owned.headers.location).toBe(res.body.imageUrl);
    // Asking again gives the same owned record.
    expect((await instant({ prompt: 'a lighthouse on a rocky coast at sunset', style: 'watercolor' })).body.imageId).toBe(res.body.imageId);
  });

  it('nearest: a similar prompt with a score between the threshold and 1', async () => {
    const res = await instant({ prompt: 'lighthouse on the coast at sunset' });
    expect(res.status).toBe(200);
    expect(res.body.match).toBe('nearest');
    expect(res.body.matchScore).toBeGreaterThanOrEqual(0.3);
    expect(res.body.matchScore).toBeLessThan(1);
    const pool = await service.infra.db.prisma.image.findUnique({ where: { id: res.body.poolImageId } });
    expect(pool?.prompt).toBe('a lighthouse on a rocky coast at sunset');
  });

  // The first-use report: paraphrases of seeded subjects that share few or no words with them.
  it.each([
    ['a puppy in a meadow', 'a dog playing in a field of flowers'],
    ['business meeting', 'a team meeting in a bright modern office'],
    ['outer space', 'planets and a ringed moon in deep space'],
    ['a kitten napping in the sun', 'a cat sleeping on a sunny windowsill'],
  ])('nearest by meaning: "%s" finds "%s"', async (prompt, expected) => {
    const res = await instant({ prompt });
    expect(res.status).toBe(200);
    expect(res.body.match).toBe('nearest');
    expect(res.body.matchScore).toBeGreaterThanOrEqual(0.3);
    expect(res.body.matchScore).toBeLessThan(1);
    const pool = await service.infra.db.prisma.image.findUnique({ where: { id: res.body.poolImageId } });
    expect(pool?.prompt).toBe(expected);
  });

  it('by meaning, the filters still apply: a style with no such subject answers 404', async () => {
    expect((await instant({ prompt: 'a puppy in a meadow', style: 'watercolor' })).status).toBe(404);
    expect((await instant({ prompt: 'business meeting', ageBuckets: ['kids'] })).status).toBe(404);
  });

  it('an embed batch scores by meaning too, with the same matchScore', async () => {
    const res = await request(service.baseUrl)
      .post('/api/v1/embed/resolve')
      .set('Authorization', `Bearer ${account.secretKey}`)
      .send({
        elements: [
          { id: 'a', prompt: 'a puppy in a meadow', mode: 'instant' },
          { id: 'b', prompt: 'a parking ticket', mode: 'instant' },
        ],
      });
    expect(res.status).toBe(200);
    const direct = await instant({ prompt: 'a puppy in a meadow' });
    expect(res.body.results[0]).toMatchObject({
      id: 'a',
      status: 'ready',
      match: 'nearest',
      matchScore: direct.body.matchScore,
      poolImageId: direct.body.poolImageId,
    });
    expect(res.body.results[1]).toMatchObject({ id: 'b', status: 'failed' });
  });

  it('a newly generated image is embedded by the worker, off the request path, and then found by meaning', async () => {
    const maker = await service.createAccount();
    const made = await request(service.baseUrl)
      .post('/api/v1/generate')
      .set('Authorization', `Bearer ${maker.secretKey}`)
      .send({ prompt: 'a giraffe eating leaves from an acacia' });
    expect(made.status).toBe(202);
    await service.waitForJob(made.body.jobId, maker.secretKey);
    const image = await service.infra.db.prisma.image.findFirstOrThrow({ where: { prompt: 'a giraffe eating leaves from an acacia' } });
    // The worker's indexer pass runs every 10 s: wait for the vector, then ask with other words.
    const deadline = Date.now() + 45_000;
    while (!(await service.infra.db.prisma.image.findUnique({ where: { id: image.id } }))?.meaningSpace) {
      if (Date.now() > deadline) throw new Error('the worker never embedded the new library image');
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const res = await instant({ prompt: 'a camelopard feeding in the savanna' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ match: 'nearest', poolImageId: image.id });
  }, 60_000);

  it('404 when nothing is close enough', async () => {
    const res = await instant({ prompt: 'quarterly tax spreadsheet reconciliation' });
    expect(res.status).toBe(404);
  });

  it('filters by style and age bucket', async () => {
    const cartoon = await instant({ prompt: 'a red fox in a snowy forest', style: 'cartoon' });
    expect(cartoon.body.match).toBe('exact');
    const kids = await instant({ prompt: 'a red fox in a snowy forest', ageBuckets: ['kids'] });
    // Only the cartoon fox is for kids, and it has a style: nothing unstyled for kids matches it.
    expect(kids.status === 404 || kids.body.poolImageId !== cartoon.body.poolImageId).toBe(true);
    const adults = await instant({ prompt: 'a meeting in an office', ageBuckets: ['adults'] });
    expect(adults.status).toBe(200);
    const pool = await service.infra.db.prisma.image.findUnique({ where: { id: adults.body.poolImageId } });
    expect(pool?.ageBucket).toBe('adults');
  });

  it('images join the library only after LIBRARY_DELAY_SECONDS', async () => {
    const delayed = await startTestService(shape, { LIBRARY_DELAY_SECONDS: '3600' });
    try {
      const acct = await delayed.createAccount();
      const made = await request(delayed.baseUrl)
        .post('/api/v1/generate')
        .set('Authorization', `Bearer ${acct.secretKey}`)
        .send({ prompt: 'a brand new comet' });
      await delayed.waitForJob(made.body.jobId, acct.secretKey);
      const res = await request(delayed.baseUrl)
        .post('/api/v1/generate')
        .set('Authorization', `Bearer ${acct.secretKey}`)
        .send({ prompt: 'a brand new comet', mode: 'instant' });
      expect(res.status).toBe(404);
    } finally {
      await delayed.stop();
    }
  });
});
