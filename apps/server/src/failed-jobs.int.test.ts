/**
 * Failed jobs for operators and accounts (docs/operating/models.md, "Failed jobs"), on both
 * adapter sets: a job that fails for good is kept past the job store's hour, listed through the
 * operator API (paged, filtered) and the admin CLI with its reason and model, listed on the
 * account's own dashboard, and retried once as a new job charged like any fresh generation, by an
 * operator or by the account from its dashboard (its own jobs only).
 */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { TransientModelError } from '@promptpix/core';
import { dashboardSessionFor } from '@promptpix/gateway/testing';
import { SHAPES, startTestService, TEST_ADMIN_TOKEN, type TestAccount, type TestService } from './testing';

jest.setTimeout(90_000);

const REPO_ROOT = resolve(__dirname, '../../..');

/** The operator CLI as an operator runs it, against this service. */
async function cli(service: TestService, ...args: string[]): Promise<any> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'apps/admin-cli/src/main.ts', ...args], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH, ADMIN_TOKEN: TEST_ADMIN_TOKEN, PROMPTPIX_URL: service.baseUrl },
  });
  return JSON.parse(stdout);
}

describe.each(SHAPES)('failed jobs (%s)', (shape) => {
  let service: TestService;
  let providerDown = true;
  let first: TestAccount;
  let second: TestAccount;
  const failedIds: Record<string, string> = {};

  beforeAll(async () => {
    service = await startTestService(
      shape,
      { JOB_ATTEMPTS: '1', MODEL_BREAKER_FAILURES: '0' },
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
    [first, second] = [await service.createAccount(), await service.createAccount()];
    for (const [name, account] of [
      ['first', first],
      ['second', second],
    ] as const) {
      const res = await fetch(`${service.baseUrl}/api/v1/generate`, {
        method: 'POST',
        headers: { authorization: `Bearer ${account.secretKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: `a lantern that failed for the ${name} account`, width: 256, height: 256 }),
      });
      const { jobId } = (await res.json()) as { jobId: string };
      expect((await service.waitForJob(jobId, account.secretKey)).status).toBe('failed');
      failedIds[name] = jobId;
    }
  });
  afterAll(() => service.stop());

  const quotaUsed = async (account: TestAccount) => (await service.admin('GET', `/admin/api/v1/accounts/${account.handle}`)).body.quotaUsed;

  it('lists failed jobs for operators with reason, model and times, filtered and paged', async () => {
    // The worker writes the row just after the job reads failed.
    let all = await service.admin('GET', '/admin/api/v1/failed-jobs');
    for (let i = 0; i < 100 && all.body.data.length < 2; i++) {
      await new Promise((r) => setTimeout(r, 50));
      all = await service.admin('GET', '/admin/api/v1/failed-jobs');
    }
    expect(all.status).toBe(200);
    expect(all.body.data).toEqual([
      expect.objectContaining({ jobId: failedIds.second, account: second.handle }),
      expect.objectContaining({
        jobId: failedIds.first,
        account: first.handle,
        model: 'procedural',
        reason: expect.stringContaining('HTTP 503'),
        prompt: expect.stringContaining('first account'),
        retriedAs: null,
      }),
    ]);
    expect(Date.parse(all.body.data[1].failedAt)).toBeGreaterThanOrEqual(Date.parse(all.body.data[1].createdAt));

    const byAccount = await service.admin('GET', `/admin/api/v1/failed-jobs?account=${first.handle}`);
    expect(byAccount.body.data.map((j: { jobId: string }) => j.jobId)).toEqual([failedIds.first]);
    expect((await service.admin('GET', '/admin/api/v1/failed-jobs?model=sdxl')).body.data).toEqual([]);
    expect((await service.admin('GET', `/admin/api/v1/failed-jobs?since=${new Date(Date.now() + 60_000).toISOString()}`)).body.data).toEqual([]);

    const page1 = await service.admin('GET', '/admin/api/v1/failed-jobs?limit=1');
    expect(page1.body.data).toHaveLength(1);
    const page2 = await service.admin('GET', `/admin/api/v1/failed-jobs?limit=1&cursor=${page1.body.nextCursor}`);
    expect([...page1.body.data, ...page2.body.data].map((j: { jobId: string }) => j.jobId)).toEqual([failedIds.second, failedIds.first]);
    expect(page2.body.nextCursor).toBeNull();

    expect((await service.admin('GET', '/admin/api/v1/failed-jobs?since=yesterday')).body.details.fieldErrors.since).toBeDefined();
    expect((await service.admin('GET', '/admin/api/v1/failed-jobs?cursor=bogus')).body.details.fieldErrors.cursor).toBeDefined();
    expect((await service.admin('GET', '/admin/api/v1/failed-jobs?account=nobody-here')).status).toBe(404);
  });

  it("shows an account its own failed jobs on the dashboard, and no one else's", async () => {
    const dashboard = await dashboardSessionFor(service, first.handle);
    const res = await dashboard.get('/dashboard/api/failed-jobs');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([expect.objectContaining({ jobId: failedIds.first, reason: expect.stringContaining('HTTP 503'), model: 'procedural' })]);
    expect(res.body.data[0].account).toBeUndefined();
  });

  it('retries a failed job once as a new job, charged like a fresh generation; the CLI does the same', async () => {
    expect(await quotaUsed(first)).toBe(0);
    providerDown = false;
    const retried = await service.admin('POST', `/admin/api/v1/failed-jobs/${failedIds.first}/retry`);
    expect(retried.status).toBe(202);
    expect(retried.body).toMatchObject({ retryOf: failedIds.first, outcome: 'generated' });
    expect(retried.body.jobId).not.toBe(failedIds.first);
    expect((await service.waitForJob(retried.body.jobId, first.secretKey)).status).toBe('completed');
    expect(await quotaUsed(first)).toBe(1);

    const again = await service.admin('POST', `/admin/api/v1/failed-jobs/${failedIds.first}/retry`);
    expect(again.status).toBe(409);
    expect(again.body.retriedAs).toBe(retried.body.jobId);
    expect((await service.admin('POST', '/admin/api/v1/failed-jobs/no-such-job/retry')).status).toBe(404);

    const listed = await cli(service, 'failed-jobs', 'list', '--account', second.handle);
    expect(listed.data).toEqual([expect.objectContaining({ jobId: failedIds.second, reason: expect.stringContaining('HTTP 503') })]);
    const viaCli = await cli(service, 'failed-jobs', 'retry', failedIds.second);
    expect(viaCli).toMatchObject({ retryOf: failedIds.second, jobId: expect.any(String) });
    expect((await service.waitForJob(viaCli.jobId, second.secretKey)).status).toBe('completed');
    expect((await service.admin('GET', `/admin/api/v1/failed-jobs?account=${second.handle}`)).body.data[0].retriedAs).toBe(viaCli.jobId);
  });

  /** A job of the account's that fails for good, once its row is kept (the worker writes it just after the job reads failed). */
  async function failedJobOf(account: TestAccount, prompt: string): Promise<string> {
    providerDown = true;
    try {
      const res = await fetch(`${service.baseUrl}/api/v1/generate`, {
        method: 'POST',
        headers: { authorization: `Bearer ${account.secretKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ prompt, width: 256, height: 256 }),
      });
      const { jobId } = (await res.json()) as { jobId: string };
      expect((await service.waitForJob(jobId, account.secretKey)).status).toBe('failed');
      const deadline = Date.now() + 10_000;
      while (!(await service.admin('GET', `/admin/api/v1/failed-jobs?account=${account.handle}`)).body.data.some((j: { jobId: string }) => j.jobId === jobId)) {
        if (Date.now() > deadline) throw new Error(`failed job ${jobId} was not kept`);
        await new Promise((r) => setTimeout(r, 50));
      }
      return jobId;
    } finally {
      providerDown = false;
    }
  }

  it("lets an account retry its own failed job from the dashboard once, charged once; not another account's, not over quota", async () => {
    const [owner, poor] = [await service.createAccount(), await service.createAccount({ monthlyGenerations: 1 })];
    const ownJob = await failedJobOf(owner, 'a kite the owner retries');
    const poorJob = await failedJobOf(poor, 'a kite past the quota');
    const dashboard = await dashboardSessionFor(service, owner.handle);

    const badId = await dashboard.post('/dashboard/api/failed-jobs/not.a.job/retry');
    expect(badId.status).toBe(400);
    expect(badId.body.details.fieldErrors.jobId).toBeDefined();
    // Another account's job reads as unknown: a 404 whether or not it was retried already.
    expect((await dashboard.post(`/dashboard/api/failed-jobs/${poorJob}/retry`)).status).toBe(404);
    expect((await dashboard.post(`/dashboard/api/failed-jobs/${failedIds.first}/retry`)).status).toBe(404);
    expect((await dashboard.post('/dashboard/api/failed-jobs/no-such-job/retry')).status).toBe(404);
    // The dashboard's CSRF rule: a POST without the session's token is refused.
    const noCsrf = await fetch(`${service.baseUrl}/dashboard/api/failed-jobs/${ownJob}/retry`, { method: 'POST', headers: { cookie: dashboard.cookie } });
    expect(noCsrf.status).toBe(403);

    expect(await quotaUsed(owner)).toBe(0);
    const retried = await dashboard.post(`/dashboard/api/failed-jobs/${ownJob}/retry`);
    expect(retried.status).toBe(202);
    expect(retried.body).toMatchObject({ retryOf: ownJob, outcome: 'generated', jobId: expect.any(String) });
    expect(retried.body.jobId).not.toBe(ownJob);
    expect((await dashboard.get(`/dashboard/api/jobs/${retried.body.jobId}`)).body.jobId).toBe(retried.body.jobId);
    expect((await service.waitForJob(retried.body.jobId, owner.secretKey)).status).toBe('completed');
    expect(await quotaUsed(owner)).toBe(1);

    const again = await dashboard.post(`/dashboard/api/failed-jobs/${ownJob}/retry`);
    expect(again.status).toBe(409);
    expect(again.body.retriedAs).toBe(retried.body.jobId);
    expect((await service.admin('POST', `/admin/api/v1/failed-jobs/${ownJob}/retry`)).status).toBe(409);
    expect(await quotaUsed(owner)).toBe(1);
    expect((await dashboard.get('/dashboard/api/failed-jobs')).body.data).toEqual([expect.objectContaining({ jobId: ownJob, retriedAs: retried.body.jobId })]);

    // Over quota: the public 402, and the job stays retryable once there is quota again.
    const poorDashboard = await dashboardSessionFor(service, poor.handle);
    const spent = await fetch(`${service.baseUrl}/api/v1/generate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${poor.secretKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'the one generation of the month', width: 256, height: 256 }),
    });
    expect((await service.waitForJob(((await spent.json()) as { jobId: string }).jobId, poor.secretKey)).status).toBe('completed');
    const over = await poorDashboard.post(`/dashboard/api/failed-jobs/${poorJob}/retry`);
    expect(over.status).toBe(402);
    expect((await poorDashboard.get('/dashboard/api/failed-jobs')).body.data).toEqual([expect.objectContaining({ jobId: poorJob, retriedAs: null })]);

    // A suspended account is signed out of the dashboard, so it cannot retry.
    await service.admin('PATCH', `/admin/api/v1/accounts/${poor.handle}`, { monthlyGenerations: 10, status: 'suspended' });
    expect((await poorDashboard.post(`/dashboard/api/failed-jobs/${poorJob}/retry`)).status).toBe(401);
    expect(await quotaUsed(poor)).toBe(1);
  });
});
