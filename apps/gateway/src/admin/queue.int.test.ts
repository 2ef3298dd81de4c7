import request from 'supertest';
import { TransientModelError } from '@promptpix/core';
import { SHAPES, startTestService, type TestService } from '@promptpix/server/testing';

describe.each(SHAPES)('operator queue visibility (%s)', (shape) => {
  let service: TestService;
  let providerDown = true;

  beforeAll(async () => {
    service = await startTestService(
      shape,
      { JOB_ATTEMPTS: '2' },
      {
        model: (inner) => ({
          ...inner,
          generate: async (req, signal) => {
            if (providerDown) throw new TransientModelError('provider returned HTTP 503');
            return inner.generate(req, signal);
          },
        }),
      },
    );
  });
  afterAll(() => service.stop());

  it('lists depths and failed jobs, and retries a failed job to completion', async () => {
    const account = await service.createAccount();
    const res = await request(service.baseUrl)
      .post('/api/v1/generate')
      .set('Authorization', `Bearer ${account.secretKey}`)
      .send({ prompt: 'retried by an operator', width: 256, height: 256 });
    const failed = await service.waitForJob(res.body.jobId, account.secretKey);
    expect(failed.status).toBe('failed');

    // The record reads failed a moment before the queue has moved the job to its failed set.
    let status = await service.admin('GET', '/admin/api/v1/queue');
    for (let i = 0; i < 100 && !status.body.failed?.some((f: { jobId: string }) => f.jobId === res.body.jobId); i++) {
      await new Promise((r) => setTimeout(r, 50));
      status = await service.admin('GET', '/admin/api/v1/queue');
    }
    expect(status.status).toBe(200);
    expect(status.body.depth).toEqual({
      waiting: expect.any(Number),
      active: expect.any(Number),
      delayed: expect.any(Number),
      failed: expect.any(Number),
      groupsWaiting: expect.any(Number),
      largestGroupBacklog: expect.any(Number),
    });
    expect(status.body.failed).toEqual(expect.arrayContaining([expect.objectContaining({ jobId: res.body.jobId, error: expect.stringContaining('503') })]));

    providerDown = false;
    const retried = await service.admin('POST', `/admin/api/v1/queue/failed/${res.body.jobId}/retry`);
    expect(retried.status).toBe(202);
    // The record still reads failed until the retried run completes it.
    for (let i = 0; i < 200; i++) {
      const job = await service.infra.jobStore.get(res.body.jobId);
      if (job?.status === 'completed') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect((await service.infra.jobStore.get(res.body.jobId))?.status).toBe('completed');
    expect((await service.admin('POST', '/admin/api/v1/queue/failed/unknown-job/retry')).status).toBe(404);
  });
});
