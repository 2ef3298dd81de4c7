import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createWebhookSender, type ResolvedAddress } from './http-sender';

/** A receiver on 127.0.0.1 that records what reached it and answers `status` (or never, for null). */
function startReceiver(status: number | null) {
  const seen: Array<{ headers: IncomingMessage['headers']; body: string }> = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      seen.push({ headers: req.headers, body });
      if (status !== null) res.writeHead(status).end();
    });
  });
  return new Promise<{ port: number; seen: typeof seen; close(): Promise<void> }>((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        port: (server.address() as AddressInfo).port,
        seen,
        close: () => new Promise<void>((done) => server.close(() => done())),
      }),
    ),
  );
}

const fakeDns = (table: Record<string, ResolvedAddress[]>) => {
  const calls: string[] = [];
  return {
    calls,
    resolve: async (host: string) => {
      calls.push(host);
      if (!table[host]) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
      return table[host];
    },
  };
};

const headers = { 'webhook-id': 'id-1', 'webhook-timestamp': '1764000000', 'webhook-signature': 'v1,abc' };
const v4 = (address: string) => ({ address, family: 4 });

describe('webhook HTTP sender', () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  afterEach(() => receiver?.close());

  it('POSTs the body with the signed headers, JSON content type and its user agent; reports the status', async () => {
    receiver = await startReceiver(204);
    const sender = createWebhookSender({ timeoutMs: 2000, allowPrivateAddresses: true, userAgent: 'Test/1' });
    expect(await sender.send(`http://127.0.0.1:${receiver.port}/hook?x=1`, headers, '{"a":1}')).toEqual({ kind: 'response', statusCode: 204 });
    expect(receiver.seen).toHaveLength(1);
    expect(receiver.seen[0].body).toBe('{"a":1}');
    expect(receiver.seen[0].headers).toMatchObject({ ...headers, 'content-type': 'application/json', 'user-agent': 'Test/1', 'content-length': '7' });
  });

  it('connects to the address it checked, whatever the name resolves to later (no DNS rebinding)', async () => {
    receiver = await startReceiver(200);
    const dns = fakeDns({ 'hooks.example': [v4('127.0.0.1')] });
    const sender = createWebhookSender({ timeoutMs: 2000, allowPrivateAddresses: true, userAgent: 'Test/1', resolve: dns.resolve });
    expect(await sender.send(`http://hooks.example:${receiver.port}/`, headers, '{}')).toEqual({ kind: 'response', statusCode: 200 });
    expect(dns.calls).toEqual(['hooks.example']);
    expect(receiver.seen[0].headers.host).toBe(`hooks.example:${receiver.port}`);
  });

  it('tries every checked address of a name in turn (localhost: ::1, then 127.0.0.1)', async () => {
    receiver = await startReceiver(200);
    const dns = fakeDns({ 'dual.example': [{ address: '::1', family: 6 }, v4('127.0.0.1')] });
    const sender = createWebhookSender({ timeoutMs: 2000, allowPrivateAddresses: true, userAgent: 'Test/1', resolve: dns.resolve });
    expect(await sender.send(`http://dual.example:${receiver.port}/`, headers, '{}')).toEqual({ kind: 'response', statusCode: 200 });
  });

  it.each([
    ['a loopback literal', 'http://127.0.0.1:PORT/', {}, /^loopback address 127\.0\.0\.1: webhooks go only to public addresses$/],
    ['an IPv6 loopback literal', 'http://[::1]:PORT/', {}, /^loopback address ::1:/],
    ['the cloud metadata address', 'http://169.254.169.254/latest/meta-data', {}, /link-local address 169\.254\.169\.254/],
    [
      'a name resolving to a private address',
      'https://intranet.example/',
      { 'intranet.example': [v4('10.1.2.3')] },
      /^intranet\.example resolves to private address 10\.1\.2\.3:/,
    ],
    [
      'a name with one public and one private address',
      'https://mixed.example/',
      { 'mixed.example': [v4('93.184.215.14'), v4('192.168.0.10')] },
      /private address 192\.168\.0\.10/,
    ],
    [
      'a name resolving to an IPv4-mapped loopback',
      'https://mapped.example/',
      { 'mapped.example': [{ address: '::ffff:127.0.0.1', family: 6 }] },
      /loopback address 127\.0\.0\.1/,
    ],
    ['a name resolving to CGNAT', 'https://cgnat.example/', { 'cgnat.example': [v4('100.64.1.1')] }, /carrier-grade NAT/],
  ])('blocks %s without sending anything', async (_name, url, table, reason) => {
    receiver = await startReceiver(200);
    const sender = createWebhookSender({ timeoutMs: 2000, allowPrivateAddresses: false, userAgent: 'Test/1', resolve: fakeDns(table).resolve });
    const outcome = await sender.send(url.replace('PORT', String(receiver.port)), headers, '{}');
    expect(outcome).toEqual({ kind: 'blocked', reason: expect.stringMatching(reason) });
    expect(receiver.seen).toHaveLength(0);
  });

  it("does not follow a redirect: the 3xx is the attempt's answer and its target sees nothing", async () => {
    const target = await startReceiver(200);
    const redirecting = createServer((_req, res) => res.writeHead(302, { location: `http://127.0.0.1:${target.port}/elsewhere` }).end());
    await new Promise<void>((done) => redirecting.listen(0, '127.0.0.1', done));
    try {
      const sender = createWebhookSender({ timeoutMs: 2000, allowPrivateAddresses: true, userAgent: 'Test/1' });
      expect(await sender.send(`http://127.0.0.1:${(redirecting.address() as AddressInfo).port}/hook`, headers, '{}')).toEqual({
        kind: 'response',
        statusCode: 302,
      });
      expect(target.seen).toHaveLength(0);
    } finally {
      redirecting.close();
      await target.close();
    }
  });

  it('reports a name that does not resolve, a refused connection and a receiver that never answers as errors (retried)', async () => {
    receiver = await startReceiver(null);
    const sender = createWebhookSender({ timeoutMs: 300, allowPrivateAddresses: true, userAgent: 'Test/1', resolve: fakeDns({}).resolve });
    expect(await sender.send('https://nowhere.example/', headers, '{}')).toEqual({
      kind: 'error',
      message: 'DNS lookup of nowhere.example failed (ENOTFOUND)',
    });
    const closed = await startReceiver(200);
    await closed.close();
    expect(await sender.send(`http://127.0.0.1:${closed.port}/`, headers, '{}')).toEqual({ kind: 'error', message: 'ECONNREFUSED' });
    const started = Date.now();
    expect(await sender.send(`http://127.0.0.1:${receiver.port}/`, headers, '{}')).toEqual({ kind: 'error', message: 'no response within 300 ms' });
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
