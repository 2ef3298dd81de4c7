import request from 'supertest';
import { BAD_SIGNATURE_MESSAGE, UNSIGNED_PROMPT_MESSAGE } from '@promptpix/core';
import { signPrompt } from '@promptpix/sdk';
import { SHAPES, startTestService, type TestAccount, type TestService } from '@promptpix/server/testing';

/**
 * A stranger holding a publishable key (docs/guarantees.md): it may make the account pay only
 * for what the key's budgets allow, whatever it sends, and the site's own images keep resolving.
 * Budgets here are small so a loop of thousands of new prompts shows where they stop it.
 */
const BUDGET = { clientPerHour: 5, clientPerDay: 8, keyPerHour: 12, keyPerDay: 15 };

describe.each(SHAPES)('publishable key budgets and signed prompts (%s)', (shape) => {
  let service: TestService;
  let run = 0;

  beforeAll(async () => {
    service = await startTestService(shape, {
      PUBLISHABLE_BUDGET_CLIENT_HOUR: String(BUDGET.clientPerHour),
      PUBLISHABLE_BUDGET_CLIENT_DAY: String(BUDGET.clientPerDay),
      PUBLISHABLE_BUDGET_KEY_HOUR: String(BUDGET.keyPerHour),
      PUBLISHABLE_BUDGET_KEY_DAY: String(BUDGET.keyPerDay),
      // The per-key cap on jobs in progress is not what stops the loop here.
      ACTIVE_JOBS_PER_KEY_ENTERPRISE: '10000',
    });
  });
  afterAll(() => service.stop());

  /** An enterprise account (600 requests a minute) whose site has one image made by its own server. */
  async function siteWithHeroImage(): Promise<{ account: TestAccount; hero: { imageUrl: string; imageId: string } }> {
    const account = await service.createAccount({ plan: 'enterprise', domains: ['example.com'], monthlyGenerations: 100_000 });
    const started = await request(service.baseUrl)
      .post('/api/v1/generate')
      .set('Authorization', `Bearer ${account.secretKey}`)
      .send({ prompt: 'the site hero image', width: 256, height: 256 });
    const hero = await service.waitForJob(started.body.jobId, account.secretKey);
    expect(hero.status).toBe('completed');
    return { account, hero };
  }

  const resolve = (key: string, elements: object[], headers: Record<string, string> = {}) => {
    let r = request(service.baseUrl).post('/api/v1/embed/resolve').set('Authorization', `Bearer ${key}`);
    for (const [name, value] of Object.entries(headers)) r = r.set(name, value);
    return r.send({ elements });
  };

  /** The quota units the account has used (reserved when a fresh generation is accepted). */
  const quotaUsed = async (account: TestAccount) => (await service.infra.db.prisma.account.findUniqueOrThrow({ where: { handle: account.handle } })).quotaUsed;

  /** `batches` requests of 49 new prompts plus the site's hero prompt, from one stranger. */
  async function strangersLoop(account: TestAccount, batches: number, headers: (i: number) => Record<string, string>) {
    const tally = { generating: 0, failed: new Map<string, number>(), heroReady: 0 };
    run++;
    for (let i = 0; i < batches; i++) {
      const elements = [
        ...Array.from({ length: 49 }, (_, n) => ({ id: `e${n}`, prompt: `stranger ${run} prompt ${i}-${n}`, width: 256, height: 256 })),
        { id: 'hero', prompt: 'the site hero image', width: 256, height: 256 },
      ];
      const res = await resolve(account.publishableKey, elements, headers(i));
      expect(res.status).toBe(200);
      for (const result of res.body.results) {
        if (result.id === 'hero') {
          if (result.status === 'ready') tally.heroReady++;
        } else if (result.status === 'generating') tally.generating++;
        else tally.failed.set(result.error, (tally.failed.get(result.error) ?? 0) + 1);
      }
    }
    return tally;
  }

  it('a stranger looping thousands of new prompts from one address starts no more than the per-client budget, spoofed X-Forwarded-For or not, Origin or not', async () => {
    const { account } = await siteWithHeroImage();
    const before = await quotaUsed(account);

    // No Origin (curl), a new forged X-Forwarded-For on every request (TRUST_PROXY is unset).
    const bare = await strangersLoop(account, 25, (i) => ({ 'X-Forwarded-For': `198.51.100.${i}` }));
    expect(bare.generating).toBe(BUDGET.clientPerHour);
    expect([...bare.failed.keys()]).toEqual([expect.stringContaining('budget exhausted (hourly, per client)')]);
    expect(bare.heroReady).toBe(25);

    // Then with the site's own Origin and forged headers of every kind: nothing more.
    const dressed = await strangersLoop(account, 25, (i) => ({
      Origin: 'https://example.com',
      'X-Forwarded-For': `203.0.113.${i}, 10.0.0.1`,
      'X-Real-IP': `192.0.2.${i}`,
    }));
    expect(dressed.generating).toBe(0);
    expect(dressed.heroReady).toBe(25);

    // 2,450 new prompts sent; the account paid for the budget alone.
    expect((await quotaUsed(account)) - before).toBe(BUDGET.clientPerHour);
    // The owner sees when the budget was hit.
    const deadline = Date.now() + 5000;
    let row = await service.infra.db.prisma.apiKey.findUnique({ where: { id: account.publishableKeyId } });
    while (!row?.budgetHitAt && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 25));
      row = await service.infra.db.prisma.apiKey.findUnique({ where: { id: account.publishableKeyId } });
    }
    expect(row?.budgetHitAt).toBeInstanceOf(Date);
    // Logged once (at most once a minute per key and process) with the key's id, never the key.
    const warnings = service.logs.filter((line) => line.includes('publishable key budget exhausted') && line.includes(account.publishableKeyId));
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0])).toMatchObject({ level: 'warn', keyId: account.publishableKeyId, budget: 'clientPerHour' });
    expect(service.logs.join('\n')).not.toContain(account.publishableKey);
  });

  it('past the per-key budget nothing more starts; a key set through the operator API keeps its own budgets', async () => {
    const { account } = await siteWithHeroImage();
    const patched = await service.admin('PATCH', `/admin/api/v1/keys/${account.publishableKeyId}`, {
      budgetClientPerHour: 1000,
      budgetClientPerDay: 1000,
      budgetKeyPerHour: 7,
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      id: account.publishableKeyId,
      budgetClientPerHour: 1000,
      budgetKeyPerHour: 7,
      budgetKeyPerDay: null,
      signedPrompts: false,
    });
    const before = await quotaUsed(account);
    const loop = await strangersLoop(account, 20, () => ({}));
    expect(loop.generating).toBe(7);
    expect([...loop.failed.keys()]).toEqual([expect.stringContaining('budget exhausted (hourly, per key)')]);
    expect(loop.heroReady).toBe(20);
    expect((await quotaUsed(account)) - before).toBe(7);
  });

  it('an element refused by the monthly quota gives its budget unit back; the quota is not touched by a refused budget', async () => {
    const { account } = await siteWithHeroImage();
    await service.admin('PATCH', `/admin/api/v1/accounts/${account.handle}`, { monthlyGenerations: 3 });
    // One unit is spent on the hero image: two fresh generations fit in the quota, the client budget is 5.
    const first = await strangersLoop(account, 1, () => ({}));
    expect(first.generating).toBe(2);
    // The batch's elements run concurrently: while refused ones hold a unit on the way to their
    // quota answer, a few others may read the budget as full.
    expect([...first.failed.keys()]).toContain('Generation quota exceeded');
    for (const error of first.failed.keys()) expect(error).toMatch(/^Generation quota exceeded$|budget exhausted \(hourly, per client\)/);
    expect(await quotaUsed(account)).toBe(3);
    // The 47 refusals gave their units back: with quota again, the client still has 3 of its 5.
    await service.admin('PATCH', `/admin/api/v1/accounts/${account.handle}`, { monthlyGenerations: 100 });
    const second = await strangersLoop(account, 1, () => ({}));
    expect(second.generating).toBe(BUDGET.clientPerHour - 2);
    expect(await quotaUsed(account)).toBe(3 + BUDGET.clientPerHour - 2);
  });

  it('bad budget settings are a 400 naming the field; an unknown key a 404', async () => {
    const { account } = await siteWithHeroImage();
    const bad = await service.admin('PATCH', `/admin/api/v1/keys/${account.publishableKeyId}`, { budgetKeyPerDay: -1, signedPrompts: 'yes' });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.details.fieldErrors).sort()).toEqual(['budgetKeyPerDay', 'signedPrompts']);
    expect((await service.admin('PATCH', '/admin/api/v1/keys/00000000-0000-4000-8000-000000000000', { signedPrompts: true })).status).toBe(404);
    expect((await service.admin('PATCH', '/admin/api/v1/keys/not-a-uuid', { signedPrompts: true })).status).toBe(404);
  });

  it('signed mode: unsigned new prompts resolve only from the cache, signed ones generate, a tampered signature is refused', async () => {
    const { account, hero } = await siteWithHeroImage();
    const patched = await service.admin('PATCH', `/admin/api/v1/keys/${account.publishableKeyId}`, { signedPrompts: true });
    expect(patched.status).toBe(200);
    const secret: string = patched.body.signingSecret;
    expect(secret).toMatch(/^pks_/);
    const before = await quotaUsed(account);

    const signed = { prompt: 'a signed lighthouse', style: 'watercolor', width: 256, height: 256 };
    const sig = await signPrompt(secret, signed);
    const tampered = sig.slice(0, -2) + (sig.endsWith('AA') ? 'BB' : 'AA');
    const res = await resolve(account.publishableKey, [
      { id: 'unsigned-new', prompt: 'an unsigned castle', width: 256, height: 256 },
      { id: 'unsigned-cached', prompt: 'the site hero image', width: 256, height: 256 },
      { id: 'signed', ...signed, sig },
      { id: 'tampered', ...signed, sig: tampered },
      { id: 'other-prompt', ...signed, prompt: 'a signed lighthouse on fire', sig },
      { id: 'other-size', ...signed, width: 512, sig },
      { id: 'seeded', ...signed, seed: 7, sig },
    ]);
    expect(res.status).toBe(200);
    expect(res.body.results).toEqual([
      { id: 'unsigned-new', status: 'failed', error: UNSIGNED_PROMPT_MESSAGE },
      { id: 'unsigned-cached', status: 'ready', imageUrl: hero.imageUrl, imageId: hero.imageId },
      { id: 'signed', status: 'generating', jobId: expect.any(String) },
      { id: 'tampered', status: 'failed', error: BAD_SIGNATURE_MESSAGE },
      { id: 'other-prompt', status: 'failed', error: BAD_SIGNATURE_MESSAGE },
      { id: 'other-size', status: 'failed', error: BAD_SIGNATURE_MESSAGE },
      { id: 'seeded', status: 'failed', error: BAD_SIGNATURE_MESSAGE },
    ]);
    const job = await service.waitForJob(res.body.results[2].jobId, account.publishableKey);
    expect(job.status).toBe('completed');
    // Once made, the signed prompt's image resolves for anyone, signature or not.
    const later = await resolve(account.publishableKey, [{ id: 'again', prompt: signed.prompt, style: signed.style, width: 256, height: 256 }]);
    expect(later.body.results[0]).toEqual({ id: 'again', status: 'ready', imageUrl: job.imageUrl, imageId: job.imageId });
    expect((await quotaUsed(account)) - before).toBe(1);
  });

  it('rotation: one call gives a new key with the same settings; the old one is refused at once', async () => {
    const { account, hero } = await siteWithHeroImage();
    await service.admin('PATCH', `/admin/api/v1/keys/${account.publishableKeyId}`, { budgetKeyPerDay: 3, signedPrompts: true });
    const element = { id: 'hero', prompt: 'the site hero image', width: 256, height: 256 };
    expect((await resolve(account.publishableKey, [element])).status).toBe(200);

    const rotated = await service.admin('POST', `/admin/api/v1/keys/${account.publishableKeyId}/rotate`);
    expect(rotated.status).toBe(201);
    expect(rotated.body).toEqual({
      id: expect.any(String),
      key: expect.stringMatching(/^pk_live_/),
      kind: 'publishable',
      name: 'site',
      domains: ['example.com'],
      replaced: account.publishableKeyId,
    });

    const old = await resolve(account.publishableKey, [element]);
    expect(old.status).toBe(401);
    expect(old.body).toEqual({ error: 'Invalid API key' });
    const fresh = await resolve(rotated.body.key, [element], { Origin: 'https://example.com' });
    expect(fresh.body.results[0]).toEqual({ id: 'hero', status: 'ready', imageUrl: hero.imageUrl, imageId: hero.imageId });
    const settings = await service.admin('PATCH', `/admin/api/v1/keys/${rotated.body.id}`, { budgetClientPerHour: null });
    expect(settings.body).toMatchObject({ budgetKeyPerDay: 3, signedPrompts: true, signingSecret: expect.stringMatching(/^pks_/) });
    expect((await service.admin('POST', `/admin/api/v1/keys/${account.publishableKeyId}/rotate`)).status).toBe(404);
  });
});

describe('publishable key budgets behind a trusted proxy (embedded)', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService('embedded', { TRUST_PROXY: 'loopback', PUBLISHABLE_BUDGET_CLIENT_HOUR: '3', PUBLISHABLE_BUDGET_KEY_HOUR: '7' });
  });
  afterAll(() => service.stop());

  it('X-Forwarded-For from a proxy the operator trusts names the client: each visitor has its own budget, the key caps them together', async () => {
    const account = await service.createAccount({ plan: 'enterprise', monthlyGenerations: 1000 });
    const fromClient = async (address: string, batch: string) => {
      const elements = Array.from({ length: 10 }, (_, n) => ({ id: `e${n}`, prompt: `visitor ${address} prompt ${batch}-${n}`, width: 256, height: 256 }));
      const res = await request(service.baseUrl)
        .post('/api/v1/embed/resolve')
        .set('Authorization', `Bearer ${account.publishableKey}`)
        .set('X-Forwarded-For', address)
        .send({ elements });
      return res.body.results.filter((r: { status: string }) => r.status === 'generating').length;
    };
    expect(await fromClient('198.51.100.1', 'a')).toBe(3);
    expect(await fromClient('198.51.100.1', 'b')).toBe(0);
    expect(await fromClient('198.51.100.2', 'a')).toBe(3);
    // The key's 7 an hour: one more for the third visitor, then nothing for anyone.
    expect(await fromClient('198.51.100.3', 'a')).toBe(1);
    expect(await fromClient('198.51.100.4', 'a')).toBe(0);
  });
});
