/** Maps CLI arguments to operator API calls. Pure: no I/O, table-tested. */
export interface ApiCall {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  body?: unknown;
}

export class UsageError extends Error {}

export const USAGE = `Usage: npm run --silent admin -- <command> [options]

  accounts create --handle <h> --email <e> [--plan free|hobby|pro|business|enterprise] [--status pending|approved|suspended|banned]
  accounts get <handle>
  accounts approve <handle>
  accounts update <handle> [--status <s>] [--plan <p>] [--monthly-generations <n>|null]
  accounts sign-in-link <handle>    a one-time dashboard sign-in link (7 days) to hand over yourself
  keys create <handle> --kind secret|publishable --name <name> [--domain <d>]...
  keys revoke <keyId>
  keys limits <keyId> [--client-per-hour <n>|null] [--client-per-day <n>|null] [--key-per-hour <n>|null] [--key-per-day <n>|null] [--signed on|off]
                                    a publishable key's budgets of new generations (null: the default) and signed mode
  keys rotate <keyId>               a new key with the same settings (shown once); the old one revoked
  library seed                      fill an empty shared library with sample images (instant mode)
  webhooks secret <handle>          the account's webhook signing secret (made on first read)
  webhooks rotate <handle>          replace it; later deliveries and retries use the new one
  webhooks deliveries <handle> [--limit <n>]   the delivery log, newest first
  queue status [--limit <n>]        queue depths and the most recent failed jobs
  queue retry <jobId>               run a failed job again
  failed-jobs list [--account <handle>] [--model <id>] [--since <ISO time>] [--limit <n>] [--cursor <c>]
                                    jobs that failed for good, newest first, with reason and model (kept FAILED_JOB_DAYS)
  failed-jobs retry <jobId>         a new job for the same request (charged like any new generation)

Global options: --url <base url> (default $PROMPTPIX_URL or http://127.0.0.1:$PORT|3000)
Token: $ADMIN_TOKEN, else DATA_DIR/admin-token (written by npm start).`;

type Options = Record<string, string | string[] | boolean | undefined>;

const one = (options: Options, name: string): string | undefined => {
  const value = options[name];
  if (typeof value === 'boolean') return undefined;
  return Array.isArray(value) ? value[value.length - 1] : value;
};
const required = (options: Options, name: string): string => {
  const value = one(options, name);
  if (!value) throw new UsageError(`--${name} is required`);
  return value;
};
const positional = (args: string[], index: number, what: string): string => {
  const value = args[index];
  if (!value) throw new UsageError(`${what} is required`);
  return value;
};

/** `n`, `null`, or absent; anything else reaches the API as given, which names the field in its 400. */
const nullableNumber = (options: Options, name: string): number | null | string | undefined => {
  const value = one(options, name);
  if (value === undefined) return undefined;
  if (value === 'null') return null;
  return /^\d+$/.test(value) ? Number(value) : value;
};

const onOff = (options: Options, name: string): boolean | undefined => {
  const value = one(options, name);
  if (value === undefined) return undefined;
  if (value !== 'on' && value !== 'off') throw new UsageError(`--${name} is on or off`);
  return value === 'on';
};

export function toApiCall(args: string[], options: Options): ApiCall {
  const [group, action] = args;
  const route = `${group ?? ''} ${action ?? ''}`.trim();
  const handle = () => encodeURIComponent(positional(args, 2, 'the account handle'));
  switch (route) {
    case 'accounts create':
      return {
        method: 'POST',
        path: '/admin/api/v1/accounts',
        body: { handle: required(options, 'handle'), email: required(options, 'email'), plan: one(options, 'plan'), status: one(options, 'status') },
      };
    case 'accounts get':
      return { method: 'GET', path: `/admin/api/v1/accounts/${handle()}` };
    case 'accounts approve':
      return { method: 'PATCH', path: `/admin/api/v1/accounts/${handle()}`, body: { status: 'approved' } };
    case 'accounts update': {
      const limit = one(options, 'monthly-generations');
      return {
        method: 'PATCH',
        path: `/admin/api/v1/accounts/${handle()}`,
        body: {
          status: one(options, 'status'),
          plan: one(options, 'plan'),
          monthlyGenerations: limit === undefined ? undefined : limit === 'null' ? null : Number(limit),
        },
      };
    }
    case 'accounts sign-in-link':
      return { method: 'POST', path: `/admin/api/v1/accounts/${handle()}/sign-in-link` };
    case 'keys create': {
      const domain = options.domain;
      const domains = typeof domain === 'string' ? [domain] : Array.isArray(domain) ? domain : [];
      return {
        method: 'POST',
        path: `/admin/api/v1/accounts/${handle()}/keys`,
        body: { kind: required(options, 'kind'), name: required(options, 'name'), domains },
      };
    }
    case 'keys revoke':
      return { method: 'DELETE', path: `/admin/api/v1/keys/${encodeURIComponent(positional(args, 2, 'the key id'))}` };
    case 'keys limits':
      return {
        method: 'PATCH',
        path: `/admin/api/v1/keys/${encodeURIComponent(positional(args, 2, 'the key id'))}`,
        body: {
          budgetClientPerHour: nullableNumber(options, 'client-per-hour'),
          budgetClientPerDay: nullableNumber(options, 'client-per-day'),
          budgetKeyPerHour: nullableNumber(options, 'key-per-hour'),
          budgetKeyPerDay: nullableNumber(options, 'key-per-day'),
          signedPrompts: onOff(options, 'signed'),
        },
      };
    case 'keys rotate':
      return { method: 'POST', path: `/admin/api/v1/keys/${encodeURIComponent(positional(args, 2, 'the key id'))}/rotate` };
    case 'webhooks secret':
      return { method: 'GET', path: `/admin/api/v1/accounts/${handle()}/webhook-secret` };
    case 'webhooks rotate':
      return { method: 'POST', path: `/admin/api/v1/accounts/${handle()}/webhook-secret/rotate` };
    case 'webhooks deliveries':
      return {
        method: 'GET',
        path: `/admin/api/v1/accounts/${handle()}/webhooks/deliveries${one(options, 'limit') ? `?limit=${encodeURIComponent(one(options, 'limit')!)}` : ''}`,
      };
    case 'queue status':
      return { method: 'GET', path: `/admin/api/v1/queue${one(options, 'limit') ? `?limit=${encodeURIComponent(one(options, 'limit')!)}` : ''}` };
    case 'queue retry':
      return { method: 'POST', path: `/admin/api/v1/queue/failed/${encodeURIComponent(positional(args, 2, 'the job id'))}/retry` };
    case 'failed-jobs list': {
      const query = new URLSearchParams();
      for (const name of ['account', 'model', 'since', 'limit', 'cursor']) {
        const value = one(options, name);
        if (value !== undefined) query.set(name, value);
      }
      const search = query.toString();
      return { method: 'GET', path: `/admin/api/v1/failed-jobs${search ? `?${search}` : ''}` };
    }
    case 'failed-jobs retry':
      return { method: 'POST', path: `/admin/api/v1/failed-jobs/${encodeURIComponent(positional(args, 2, 'the job id'))}/retry` };
    case 'library seed':
      return { method: 'POST', path: '/admin/api/v1/library/seed' };
    default:
      throw new UsageError(route ? `Unknown command: ${route}` : 'No command given');
  }
}
