/**
 * What the bench does through the service's own surfaces: the operator API (accounts, keys,
 * permalinks) and the public API (generate, poll). No shortcuts into the database here.
 */
import type { JobView } from '@promptpix/contracts';
import { sleep } from './proc';

export interface HttpAnswer<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export async function http<T = unknown>(url: string, init: RequestInit & { json?: unknown } = {}): Promise<HttpAnswer<T>> {
  const headers = new Headers(init.headers);
  let body = init.body;
  if (init.json !== undefined) {
    headers.set('content-type', 'application/json');
    body = JSON.stringify(init.json);
  }
  const res = await fetch(url, { ...init, headers, body, redirect: 'manual' });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // not JSON (a redirect's text body)
  }
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}

function expectStatus(answer: HttpAnswer, expected: number[], what: string) {
  if (!expected.includes(answer.status)) throw new Error(`${what}: HTTP ${answer.status} ${answer.text.slice(0, 300)}`);
}

export interface Account {
  id: string;
  handle: string;
}

export interface BenchAccount extends Account {
  /** Secret keys; rate-limited scenarios rotate through them. */
  keys: string[];
}

/** Operator API client (README, "Operator API"). */
export function operatorApi(baseUrl: string, adminToken: string) {
  const auth = { authorization: `Bearer ${adminToken}` };
  const api = {
    async createAccount(handle: string): Promise<Account> {
      const created = await http<Account>(`${baseUrl}/admin/api/v1/accounts`, {
        method: 'POST',
        headers: auth,
        json: { handle, email: `${handle}@bench.example`, plan: 'enterprise', status: 'approved' },
      });
      expectStatus(created, [201], `create account ${handle}`);
      // A generous monthly allowance so quota never answers 402 during the bench.
      const patched = await http(`${baseUrl}/admin/api/v1/accounts/${handle}`, { method: 'PATCH', headers: auth, json: { monthlyGenerations: 100_000_000 } });
      expectStatus(patched, [200], `patch account ${handle}`);
      return { id: created.body.id, handle };
    },

    async createKey(handle: string, kind: 'secret' | 'publishable' = 'secret', name = 'bench'): Promise<string> {
      const created = await http<{ key: string }>(`${baseUrl}/admin/api/v1/accounts/${handle}/keys`, {
        method: 'POST',
        headers: auth,
        json: { kind, name, domains: [] },
      });
      expectStatus(created, [201], `create key for ${handle}`);
      return created.body.key;
    },

    /** An approved enterprise account with `keyCount` secret keys. */
    async benchAccount(handle: string, keyCount: number): Promise<BenchAccount> {
      const account = await api.createAccount(handle);
      const keys: string[] = [];
      for (let i = 0; i < keyCount; i += 16) {
        keys.push(...(await Promise.all(Array.from({ length: Math.min(16, keyCount - i) }, (_, j) => api.createKey(handle, 'secret', `bench-${i + j}`)))));
      }
      return { ...account, keys };
    },

    async createPermalink(handle: string, name: string, imageIds: string[]): Promise<string> {
      const created = await http<{ url: string }>(`${baseUrl}/admin/api/v1/accounts/${handle}/permalinks`, {
        method: 'POST',
        headers: auth,
        json: { name, imageIds },
      });
      expectStatus(created, [201], `create permalink ${handle}/${name}`);
      return created.body.url;
    },
  };
  return api;
}

export interface GenerateBody {
  prompt: string;
  style?: string;
  width?: number;
  height?: number;
  format?: 'png' | 'jpeg' | 'webp';
  mode?: 'generate' | 'instant';
}

export function publicApi(baseUrl: string) {
  const api = {
    async generate(key: string, body: GenerateBody): Promise<HttpAnswer<{ jobId: string; status: string }>> {
      return http(`${baseUrl}/api/v1/generate`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, json: body });
    },

    async startJob(key: string, body: GenerateBody): Promise<string> {
      const answer = await api.generate(key, body);
      expectStatus(answer, [202], `generate "${body.prompt}"`);
      return answer.body.jobId;
    },

    async job(key: string, jobId: string): Promise<JobView> {
      const answer = await http<JobView>(`${baseUrl}/api/v1/job/${jobId}`, { headers: { authorization: `Bearer ${key}` } });
      expectStatus(answer, [200], `poll ${jobId}`);
      return answer.body;
    },

    async waitForJob(key: string, jobId: string, timeoutMs = 120_000, everyMs = 50): Promise<JobView> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const job = await api.job(key, jobId);
        if (job.status === 'completed') return job;
        if (job.status === 'failed') throw new Error(`job ${jobId} failed: ${job.error}`);
        if (Date.now() > deadline) throw new Error(`job ${jobId} still ${job.status} after ${timeoutMs} ms`);
        await sleep(everyMs);
      }
    },

    /** Generates images and waits for all; `parallel` jobs in flight at a time. */
    async generateAll(key: string, bodies: GenerateBody[], parallel = 16): Promise<JobView[]> {
      const results: JobView[] = new Array(bodies.length);
      let next = 0;
      await Promise.all(
        Array.from({ length: Math.min(parallel, bodies.length) }, async () => {
          while (next < bodies.length) {
            const i = next++;
            results[i] = await api.waitForJob(key, await api.startJob(key, bodies[i]));
          }
        }),
      );
      return results;
    },
  };
  return api;
}
