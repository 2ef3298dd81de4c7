import request from 'supertest';
import { SHAPES, startGatewayPair, startTestService, type TestService } from '@promptpix/server/testing';

/**
 * Fresh generations arriving together share one cache-lookup-and-reservation statement (group
 * commit, docs/architecture.md "Starting a job"). Whatever the batches, each 202 holds its own
 * unit, the units are handed out once, and used never passes the limit.
 */
const LIMIT = 37;
const BURST = 60;

// Words, not numbers: the prompt screen reads some digit runs as leetspeak.
const COLOURS = ['red', 'blue', 'green', 'amber', 'violet', 'silver', 'golden', 'black', 'white', 'teal'];
const ANIMALS = ['fox', 'owl', 'heron', 'otter', 'lynx', 'badger'];
const distinctPrompt = (i: number, where: string) => `a ${COLOURS[i % 10]} ${ANIMALS[Math.floor(i / 10) % 6]} ${where}`;

const expectExactQuota = (statuses: number[], quotaHeaders: Array<string | undefined>, quotaUsed: number) => {
  expect(statuses.filter((s) => s === 202)).toHaveLength(LIMIT);
  expect(statuses.filter((s) => s === 402)).toHaveLength(BURST - LIMIT);
  // Every accepted request was given a unit of its own: the used values 1 … LIMIT, each once.
  const units = quotaHeaders.filter((_h, i) => statuses[i] === 202).map(Number);
  expect([...units].sort((a, b) => a - b)).toEqual(Array.from({ length: LIMIT }, (_, i) => i + 1));
  expect(quotaUsed).toBe(LIMIT);
};

describe.each(SHAPES)('a burst of fresh generations (%s)', (shape) => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService(shape, {}, { worker: false });
  });
  afterAll(() => service.stop());

  it(`${BURST} concurrent distinct prompts on a month of ${LIMIT}: exactly ${LIMIT} accepted, each with its own unit`, async () => {
    const account = await service.createAccount({ plan: 'enterprise', monthlyGenerations: LIMIT });
    const results = await Promise.all(
      Array.from({ length: BURST }, (_, i) =>
        request(service.baseUrl)
          .post('/api/v1/generate')
          .set('Authorization', `Bearer ${account.secretKey}`)
          .send({ prompt: distinctPrompt(i, 'in a meadow') }),
      ),
    );
    const after = await service.admin('GET', `/admin/api/v1/accounts/${account.handle}`);
    expectExactQuota(
      results.map((r) => r.status),
      results.map((r) => r.headers['x-quota-used']),
      after.body.quotaUsed,
    );
    // Each accepted request has its own queued job.
    const jobIds = results.filter((r) => r.status === 202).map((r) => r.body.jobId);
    expect(new Set(jobIds).size).toBe(LIMIT);
  });

  it('identical prompts in one burst still make one generation and take one unit', async () => {
    const account = await service.createAccount({ plan: 'enterprise', monthlyGenerations: 100 });
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        request(service.baseUrl)
          .post('/api/v1/generate')
          .set('Authorization', `Bearer ${account.secretKey}`)
          .send({ prompt: i % 2 ? 'the same lighthouse' : distinctPrompt(i, 'by a harbour') }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(12).fill(202));
    expect(new Set(results.filter((_, i) => i % 2).map((r) => r.body.jobId)).size).toBe(1);
    const after = await service.admin('GET', `/admin/api/v1/accounts/${account.handle}`);
    expect(after.body.quotaUsed).toBe(7);
  });
});

describe('a burst of fresh generations through two gateways (production)', () => {
  let pair: Awaited<ReturnType<typeof startGatewayPair>>;
  beforeAll(async () => {
    pair = await startGatewayPair();
  });
  afterAll(() => pair.stop());

  it(`${BURST} concurrent distinct prompts split over both: exactly ${LIMIT} accepted, each with its own unit`, async () => {
    const account = await pair.first.createAccount({ plan: 'enterprise', monthlyGenerations: LIMIT });
    const results = await Promise.all(
      Array.from({ length: BURST }, (_, i) =>
        request(i % 2 ? pair.first.baseUrl : pair.second.baseUrl)
          .post('/api/v1/generate')
          .set('Authorization', `Bearer ${account.secretKey}`)
          .send({ prompt: distinctPrompt(i, 'on a hill') }),
      ),
    );
    const after = await pair.first.admin('GET', `/admin/api/v1/accounts/${account.handle}`);
    expectExactQuota(
      results.map((r) => r.status),
      results.map((r) => r.headers['x-quota-used']),
      after.body.quotaUsed,
    );
  });
});
