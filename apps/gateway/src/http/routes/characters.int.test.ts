import request from 'supertest';
import sharp from 'sharp';
import { createProceduralModel } from '@promptpix/models';
import { SHAPES, startTestService, type TestAccount, type TestService } from '@promptpix/server/testing';

const solid = async (r: number, g: number, b: number) =>
  (
    await sharp({ create: { width: 64, height: 64, channels: 3, background: { r, g, b } } })
      .png()
      .toBuffer()
  ).toString('base64');

/** Share of pixels close to pure magenta in an image. */
async function magentaShare(bytes: Buffer): Promise<number> {
  const { data, info } = await sharp(bytes).removeAlpha().resize(128, 128).raw().toBuffer({ resolveWithObject: true });
  let hits = 0;
  for (let i = 0; i < data.length; i += 3) if (data[i] > 180 && data[i + 1] < 90 && data[i + 2] > 180) hits++;
  return hits / (info.width * info.height);
}

describe.each(SHAPES)('characters (%s)', (shape) => {
  let service: TestService;
  let account: TestAccount;
  let failPreparations = 0;

  beforeAll(async () => {
    service = await startTestService(
      shape,
      { JOB_ATTEMPTS: '1', MODEL_LATENCY_MS: '150' },
      {
        model: (inner) => ({
          ...inner,
          name: inner.name,
          generate: (req, signal) => inner.generate(req, signal),
          prepareReference: async (input, signal) => {
            if (failPreparations > 0) {
              failPreparations--;
              throw new Error('reference model unavailable');
            }
            return inner.prepareReference!(input, signal);
          },
        }),
      },
    );
    account = await service.createAccount({ plan: 'business' });
  });
  afterAll(() => service.stop());

  const createCharacter = async (body: object) => service.admin('POST', `/admin/api/v1/accounts/${account.handle}/characters`, body);
  const generate = (body: object) => request(service.baseUrl).post('/api/v1/generate').set('Authorization', `Bearer ${account.secretKey}`).send(body);
  const generateEvent = async (imageId: string) => {
    const [event] = await service.storedEvents({ imageId, eventType: 'generate' });
    return event?.metadata as Record<string, unknown>;
  };

  it('the operator creates characters from reference images or a spec sheet; bad images are a 400 naming them', async () => {
    const created = await createCharacter({
      name: 'Mika',
      description: 'Our mascot',
      images: [await solid(255, 0, 255), `data:image/png;base64,${await solid(250, 10, 240)}`],
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: expect.any(String), name: 'Mika', description: 'Our mascot', referenceCount: 2 });
    const sheet = await createCharacter({ name: 'Bolt', specSheet: 'a small yellow robot with blue eyes', behavior: 'lock', lockedFamily: 'illustration' });
    expect(sheet.body.referenceCount).toBe(0);
    for (const [body, field] of [
      [{ name: 'x', images: ['bm90IGFuIGltYWdl'] }, 'images.0'],
      [{ name: 'x', images: Array(11).fill(await solid(1, 2, 3)) }, 'images'],
      [{ name: 'x' }, 'images'],
      [{ name: 'x', specSheet: 'y', lockedFamily: 'cubist' }, 'lockedFamily'],
    ] as const) {
      const res = await createCharacter(body);
      expect(res.status).toBe(400);
      expect(res.body.details.fieldErrors[field]).toBeDefined();
    }
  });

  it('GET /api/v1/characters lists them for secret keys only, never with reference images', async () => {
    const res = await request(service.baseUrl).get('/api/v1/characters').set('Authorization', `Bearer ${account.secretKey}`);
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('private, max-age=300, stale-while-revalidate=3600');
    expect(res.body.characters.map((c: { name: string }) => c.name)).toEqual(expect.arrayContaining(['Bolt', 'Mika']));
    for (const c of res.body.characters) expect(Object.keys(c).sort()).toEqual(['description', 'id', 'name', 'referenceCount']);
    expect(JSON.stringify(res.body)).not.toMatch(/references\//);
    const pk = await request(service.baseUrl).get('/api/v1/characters').set('Authorization', `Bearer ${account.publishableKey}`);
    expect(pk.status).toBe(403);
  });

  it("an unknown or another account's character is a 400 naming the field", async () => {
    const other = await service.createAccount();
    const theirs = await service.admin('POST', `/admin/api/v1/accounts/${other.handle}/characters`, { name: 'Theirs', specSheet: 'x' });
    for (const id of ['00000000-0000-4000-8000-000000000000', theirs.body.id]) {
      const res = await generate({ prompt: 'x', character: id });
      expect(res.status).toBe(400);
      expect(res.body.details.fieldErrors.character).toEqual(['Unknown character']);
    }
  });

  it('with the procedural renderer a generation with a character visibly differs from one without', async () => {
    const mika = (await createCharacter({ name: 'Magenta', images: [await solid(255, 0, 255)] })).body;
    // A fixed seed: how much of a scene the character covers depends on where the seed puts it.
    const scene = { prompt: 'a quiet meadow at noon', width: 512, height: 512, seed: 7 };
    const plain = await service.waitForJob((await generate(scene)).body.jobId, account.secretKey);
    const withCharacter = await service.waitForJob((await generate({ ...scene, character: mika.id })).body.jobId, account.secretKey);
    expect(withCharacter.status).toBe('completed');
    expect(withCharacter.imageId).not.toBe(plain.imageId);
    // Compare with the very same scene, rendered without the character.
    const sameScene = await createProceduralModel().generate({
      prompt: 'a quiet meadow at noon',
      strength: 1,
      seed: withCharacter.seed,
      width: 512,
      height: 512,
    });
    const withShare = await magentaShare(Buffer.from(await (await fetch(withCharacter.imageUrl)).arrayBuffer()));
    expect(withShare - (await magentaShare(sameScene.data))).toBeGreaterThan(0.01);
  });

  it('the first scene in a family prepares a reference once; later scenes reuse it; new sources invalidate it', async () => {
    const created = await createCharacter({ name: 'Ren', images: [await solid(255, 0, 255)] });
    const scene = async (prompt: string, style: string) => {
      const job = await service.waitForJob(
        (await generate({ prompt, style, character: created.body.id, width: 256, height: 256 })).body.jobId,
        account.secretKey,
      );
      expect(job.status).toBe('completed');
      return generateEvent(job.imageId);
    };
    // Three concurrent first scenes in the painterly family: one preparation between them.
    const firsts = await Promise.all(
      ['a', 'b', 'c'].map((p) => generate({ prompt: `scene ${p}`, style: 'watercolor', character: created.body.id, width: 256, height: 256 })),
    );
    const jobs = await Promise.all(firsts.map((r) => service.waitForJob(r.body.jobId, account.secretKey)));
    const events = await Promise.all(jobs.map((j) => generateEvent(j.imageId)));
    expect(events.filter((e) => e.referenceReused === false)).toHaveLength(1);
    expect(events.every((e) => e.referenceFamily === 'painterly')).toBe(true);
    const prepared = events.find((e) => e.referenceReused === false)!;
    expect(prepared.referenceMs as number).toBeGreaterThanOrEqual(100); // the wait for preparation shows in its timing
    expect(await service.infra.db.prisma.preparedReference.count({ where: { characterId: created.body.id } })).toBe(1);

    expect((await scene('a later scene', 'watercolor')).referenceReused).toBe(true);
    // No style: the original references, no preparation at all.
    expect((await scene('an unstyled scene', 'photorealistic')).referenceFamily).toBe('photographic');

    const patched = await service.admin('PATCH', `/admin/api/v1/accounts/${account.handle}/characters/${created.body.id}`, {
      images: [await solid(0, 255, 0)],
    });
    expect(patched.body.referenceCount).toBe(1);
    expect((await scene('after new photos', 'watercolor')).referenceReused).toBe(false);
  });

  it('a character id in upper case is the same cache entry on generate and embed', async () => {
    const created = await createCharacter({ name: 'Caps', specSheet: 'a tall heron in a grey coat' });
    const body = { prompt: 'a heron by the pier', width: 256, height: 256 };
    const first = await service.waitForJob((await generate({ ...body, character: created.body.id })).body.jobId, account.secretKey);
    const upper = created.body.id.toUpperCase();
    const again = await generate({ ...body, character: upper });
    expect(again.status).toBe(202);
    expect(await service.waitForJob(again.body.jobId, account.secretKey)).toMatchObject({ status: 'completed', imageId: first.imageId });
    const embedded = await request(service.baseUrl)
      .post('/api/v1/embed/resolve')
      .set('Authorization', `Bearer ${account.secretKey}`)
      .send({ elements: [{ id: 'h', ...body, character: upper }] });
    expect(embedded.body.results).toEqual([{ id: 'h', status: 'ready', imageUrl: first.imageUrl, imageId: first.imageId }]);
  });

  it('a failed preparation fails the job with a readable error, and a retry can succeed', async () => {
    const created = await createCharacter({ name: 'Ivo', images: [await solid(255, 0, 255)] });
    failPreparations = 1;
    const first = await service.waitForJob(
      (await generate({ prompt: 'a cinematic harbour', style: 'cinematic', character: created.body.id, width: 256, height: 256 })).body.jobId,
      account.secretKey,
    );
    expect(first).toMatchObject({ status: 'failed', error: 'Image generation failed: Preparing the character reference failed: reference model unavailable' });
    const retry = await service.waitForJob(
      (await generate({ prompt: 'a cinematic harbour', style: 'cinematic', character: created.body.id, width: 256, height: 256 })).body.jobId,
      account.secretKey,
    );
    expect(retry.status).toBe('completed');
  });
});
