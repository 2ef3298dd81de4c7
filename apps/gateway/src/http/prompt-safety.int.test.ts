import request from 'supertest';
import { PROMPT_BLOCKED_REASON, PROMPT_NOT_FOR_CHILDREN_REASON } from '@promptpix/core';
import { SHAPES, startTestService, type TestAccount, type TestService } from '@promptpix/server/testing';

describe.each(SHAPES)('prompt safety filter (%s)', (shape) => {
  let service: TestService;
  let account: TestAccount;

  beforeAll(async () => {
    service = await startTestService(shape, { SAFETY_EXTRA_TERMS: 'Acme Rival, competitor logo', SAFETY_KIDS_TERMS: 'haunted house' });
    account = await service.createAccount();
  });
  afterAll(() => service.stop());

  const generate = (body: object) => request(service.baseUrl).post('/api/v1/generate').set('Authorization', `Bearer ${account.secretKey}`).send(body);
  const blocked = (reason: string) => ({ error: 'Invalid request', details: { formErrors: [], fieldErrors: { prompt: [reason] } } });
  const quotaUsed = async () => (await service.admin('GET', `/admin/api/v1/accounts/${account.handle}`)).body.quotaUsed;

  it.each([
    ['profanity from the word list', { prompt: 'a portrait of a fucking wizard' }, PROMPT_BLOCKED_REASON],
    ['an obfuscated spelling', { prompt: 'a sh1tty old car' }, PROMPT_BLOCKED_REASON],
    ["the deployment's extra terms, any case", { prompt: 'the ACME rival mascot on a billboard' }, PROMPT_BLOCKED_REASON],
    ['kids: violence', { prompt: 'a knight with a bloody sword', ageBuckets: ['kids'] }, PROMPT_NOT_FOR_CHILDREN_REASON],
    ['bigkids: weapons', { prompt: 'a cowboy holding a gun', ageBuckets: ['bigkids'] }, PROMPT_NOT_FOR_CHILDREN_REASON],
    ["kids: the deployment's kids terms", { prompt: 'a haunted house on a hill', ageBuckets: ['kids'] }, PROMPT_NOT_FOR_CHILDREN_REASON],
    ['instant mode too', { prompt: 'a fucking lighthouse', mode: 'instant' }, PROMPT_BLOCKED_REASON],
  ])('generate refuses %s with a 400 naming prompt, before any quota or model call', async (_name, body, reason) => {
    const answer = await generate(body);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual(blocked(reason));
    expect(answer.headers['x-quota-used']).toBeUndefined();
    expect(await quotaUsed()).toBe(0);
    expect(service.modelCalls()).toBe(0);
  });

  it.each([
    ['adults may ask for what kids may not', { prompt: 'a knight with a bloody sword', ageBuckets: ['adults'] }],
    ['no age bucket means all ages, not kids', { prompt: 'a cowboy holding a gun' }],
    ['whole words only', { prompt: 'a skillful archer eating a grapefruit in Scunthorpe', ageBuckets: ['kids'] }],
  ])('allows: %s', async (_name, body) => {
    expect((await generate(body)).status).toBe(202);
  });

  it('render refuses a blocked prompt with the same 400', async () => {
    const answer = await request(service.baseUrl).get('/api/v1/render').query({ prompt: 'a bloody battlefield', age: 'kids', key: account.secretKey });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual(blocked(PROMPT_NOT_FOR_CHILDREN_REASON));
  });

  it('embed: a blocked element comes back failed and the others resolve', async () => {
    const answer = await request(service.baseUrl)
      .post('/api/v1/embed/resolve')
      .set('Authorization', `Bearer ${account.publishableKey}`)
      .send({
        elements: [
          { id: 'ok', prompt: 'a sunflower field' },
          { id: 'bad', prompt: 'a shitty sunflower field' },
          { id: 'kid', prompt: 'a pirate with a pistol', age: 'kids' },
        ],
      });
    expect(answer.status).toBe(200);
    expect(answer.body.results).toEqual([
      { id: 'ok', status: 'generating', jobId: expect.any(String) },
      { id: 'bad', status: 'failed', error: `prompt: ${PROMPT_BLOCKED_REASON}` },
      { id: 'kid', status: 'failed', error: `prompt: ${PROMPT_NOT_FOR_CHILDREN_REASON}` },
    ]);
  });
});

describe('SAFETY_FILTER=off', () => {
  it('lets every prompt through, for deployments that screen prompts upstream (config only: one adapter set suffices)', async () => {
    const open = await startTestService('production', { SAFETY_FILTER: 'off' }, { worker: false });
    try {
      const other = await open.createAccount();
      const answer = await request(open.baseUrl)
        .post('/api/v1/generate')
        .set('Authorization', `Bearer ${other.secretKey}`)
        .send({ prompt: 'a shitty old car' });
      expect(answer.status).toBe(202);
    } finally {
      await open.stop();
    }
  });
});
