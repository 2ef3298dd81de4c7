import { toApiCall, UsageError } from './commands';

describe('admin CLI command mapping', () => {
  it.each([
    [
      ['accounts', 'create'],
      { handle: 'acme', email: 'a@acme.io', status: 'approved' },
      { method: 'POST', path: '/admin/api/v1/accounts', body: { handle: 'acme', email: 'a@acme.io', plan: undefined, status: 'approved' } },
    ],
    [['accounts', 'get', 'acme'], {}, { method: 'GET', path: '/admin/api/v1/accounts/acme' }],
    [['accounts', 'approve', 'acme'], {}, { method: 'PATCH', path: '/admin/api/v1/accounts/acme', body: { status: 'approved' } }],
    [
      ['accounts', 'update', 'acme'],
      { plan: 'pro', 'monthly-generations': 'null' },
      { method: 'PATCH', path: '/admin/api/v1/accounts/acme', body: { status: undefined, plan: 'pro', monthlyGenerations: null } },
    ],
    [
      ['keys', 'create', 'acme'],
      { kind: 'publishable', name: 'site', domain: ['*.acme.io', 'acme.io'] },
      { method: 'POST', path: '/admin/api/v1/accounts/acme/keys', body: { kind: 'publishable', name: 'site', domains: ['*.acme.io', 'acme.io'] } },
    ],
    [['keys', 'revoke', 'k1'], {}, { method: 'DELETE', path: '/admin/api/v1/keys/k1' }],
    [
      ['keys', 'limits', 'k1'],
      { 'client-per-hour': '10', 'key-per-day': 'null', signed: 'on' },
      {
        method: 'PATCH',
        path: '/admin/api/v1/keys/k1',
        body: { budgetClientPerHour: 10, budgetClientPerDay: undefined, budgetKeyPerHour: undefined, budgetKeyPerDay: null, signedPrompts: true },
      },
    ],
    [
      ['keys', 'limits', 'k1'],
      { 'key-per-hour': '-3' },
      {
        method: 'PATCH',
        path: '/admin/api/v1/keys/k1',
        body: { budgetClientPerHour: undefined, budgetClientPerDay: undefined, budgetKeyPerHour: '-3', budgetKeyPerDay: undefined, signedPrompts: undefined },
      },
    ],
    [['keys', 'rotate', 'k1'], {}, { method: 'POST', path: '/admin/api/v1/keys/k1/rotate' }],
    [['accounts', 'sign-in-link', 'acme'], {}, { method: 'POST', path: '/admin/api/v1/accounts/acme/sign-in-link' }],
    [['library', 'seed'], {}, { method: 'POST', path: '/admin/api/v1/library/seed' }],
    [['queue', 'status'], { limit: '5' }, { method: 'GET', path: '/admin/api/v1/queue?limit=5' }],
    [['queue', 'retry', 'job-1'], {}, { method: 'POST', path: '/admin/api/v1/queue/failed/job-1/retry' }],
    [['failed-jobs', 'list'], {}, { method: 'GET', path: '/admin/api/v1/failed-jobs' }],
    [
      ['failed-jobs', 'list'],
      { account: 'acme', model: 'sdxl gpu', since: '2026-11-24T00:00:00Z', limit: '10' },
      { method: 'GET', path: '/admin/api/v1/failed-jobs?account=acme&model=sdxl+gpu&since=2026-11-24T00%3A00%3A00Z&limit=10' },
    ],
    [['failed-jobs', 'retry', 'job/1'], {}, { method: 'POST', path: '/admin/api/v1/failed-jobs/job%2F1/retry' }],
    [['webhooks', 'secret', 'acme'], {}, { method: 'GET', path: '/admin/api/v1/accounts/acme/webhook-secret' }],
    [['webhooks', 'rotate', 'acme'], {}, { method: 'POST', path: '/admin/api/v1/accounts/acme/webhook-secret/rotate' }],
    [['webhooks', 'deliveries', 'acme'], { limit: '20' }, { method: 'GET', path: '/admin/api/v1/accounts/acme/webhooks/deliveries?limit=20' }],
    [['webhooks', 'deliveries', 'a b'], {}, { method: 'GET', path: '/admin/api/v1/accounts/a%20b/webhooks/deliveries' }],
  ])('%j %j', (args, options, call) => expect(toApiCall(args, options)).toEqual(call));

  it.each([
    [['accounts', 'create'], { email: 'a@b.c' }, '--handle is required'],
    [['keys', 'create'], { kind: 'secret', name: 'x' }, 'the account handle is required'],
    [['frobnicate'], {}, 'Unknown command: frobnicate'],
    [['webhooks', 'rotate'], {}, 'the account handle is required'],
    [['keys', 'limits', 'k1'], { signed: 'yes' }, '--signed is on or off'],
    [['keys', 'rotate'], {}, 'the key id is required'],
    [['failed-jobs', 'retry'], {}, 'the job id is required'],
  ])('%j is a usage error', (args, options, message) => {
    expect(() => toApiCall(args, options)).toThrow(new UsageError(message));
  });
});
