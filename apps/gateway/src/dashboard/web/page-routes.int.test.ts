/**
 * The dashboard's app shell and assets (./page-routes.ts): one HTML document for every
 * client-side route, with a strict CSP; the esbuild bundle with ETags and gzip; API paths untouched.
 */
import { get, type IncomingHttpHeaders } from 'node:http';
import { gunzipSync } from 'node:zlib';
import request from 'supertest';
import { startTestService, type TestService } from '@promptpix/server/testing';
import { dashboardCsp } from './page-routes';

jest.setTimeout(90_000);

let service: TestService;

beforeAll(async () => {
  service = await startTestService('embedded');
});

afterAll(async () => {
  await service?.stop();
});

/** The bytes as sent (supertest and fetch would decompress them). */
const raw = (url: string, headers: Record<string, string>) =>
  new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
    get(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    }).on('error', reject);
  });

describe('the dashboard app shell', () => {
  it.each(['/dashboard', '/dashboard/', '/dashboard/sign-in', '/dashboard/images', '/dashboard/images/abc123', '/dashboard/keys', '/dashboard/usage'])('GET %s serves the shell with a strict CSP, not cached', async (path) => {
    const res = await request(service.baseUrl).get(path);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['cache-control']).toBe('no-store');
    const csp = res.headers['content-security-policy'];
    for (const directive of ["default-src 'self'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "frame-ancestors 'none'", "base-uri 'none'", "form-action 'self'"]) expect(csp).toContain(directive);
    expect(csp).toMatch(/img-src 'self' data: blob:/);
    expect(csp).not.toContain('unsafe-inline');
    expect(res.text).toContain('<div id="app">');
    expect(res.text).toMatch(/<script defer src="\/dashboard\/assets\/app\.js\?v=[\w-]{22}"><\/script>/);
    expect(res.text).toMatch(/<link rel="stylesheet" href="\/dashboard\/assets\/app\.css\?v=[\w-]{22}">/);
    // No inline script or style: the CSP would block them.
    expect(res.text).not.toMatch(/<script>(?!<)/);
    expect(res.text).not.toMatch(/<style|style="/);
  });

  it('adds the storage origin to img-src when images are served from another host', () => {
    const csp = dashboardCsp({ publicBaseUrl: 'https://pix.example.com', storage: { publicUrl: (k: string) => `https://bucket.s3.example.net/images/${k}` } as never });
    expect(csp).toContain("img-src 'self' data: blob: https://bucket.s3.example.net;");
    const same = dashboardCsp({ publicBaseUrl: 'https://pix.example.com', storage: { publicUrl: (k: string) => `https://pix.example.com/files/${k}` } as never });
    expect(same).toContain("img-src 'self' data: blob:;");
  });

  it('leaves /dashboard/api/* to the API: an unknown API path is a JSON 404, not the shell', async () => {
    const res = await request(service.baseUrl).get('/dashboard/api/unknown');
    expect([401, 404]).toContain(res.status);
    expect(res.headers['content-type']).toMatch(/json/);
    expect(res.text).not.toContain('<div id="app">');
    const asset = await request(service.baseUrl).get('/dashboard/assets/missing.js');
    expect(asset.status).toBe(404);
    expect(asset.text).not.toContain('<div id="app">');
  });
});

describe.each([
  ['app.js', /^text\/javascript; charset=utf-8$/],
  ['app.css', /^text\/css; charset=utf-8$/],
])('GET /dashboard/assets/%s', (file, type) => {
  it('is served with its type, a strong ETag, 304 on revalidation, and gzip when accepted', async () => {
    const plain = await request(service.baseUrl).get(`/dashboard/assets/${file}`).set('Accept-Encoding', 'identity');
    expect(plain.status).toBe(200);
    expect(plain.headers['content-type']).toMatch(type);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toContain('Accept-Encoding');
    const etag = plain.headers.etag;
    expect(etag).toMatch(/^"[\w-]{22}"$/);
    const body = Buffer.from(plain.text ?? '', 'utf8');
    expect(body.length).toBeGreaterThan(1000);

    const again = await request(service.baseUrl).get(`/dashboard/assets/${file}`).set('Accept-Encoding', 'identity').set('If-None-Match', etag);
    expect(again.status).toBe(304);

    const gz = await raw(`${service.baseUrl}/dashboard/assets/${file}`, { 'Accept-Encoding': 'gzip, deflate' });
    expect(gz.status).toBe(200);
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.headers.etag).toBe(etag.replace(/"$/, '-gz"'));
    expect(gunzipSync(gz.body).toString('utf8')).toBe(plain.text);
    expect(gz.body.length).toBeLessThan(body.length / 2);
    const gz304 = await raw(`${service.baseUrl}/dashboard/assets/${file}`, { 'Accept-Encoding': 'gzip', 'If-None-Match': gz.headers.etag as string });
    expect(gz304.status).toBe(304);

    // The shell's versioned URL may be cached for good; the bare URL revalidates.
    const shell = await request(service.baseUrl).get('/dashboard');
    const versioned = new RegExp(`/dashboard/assets/${file.replace('.', '\\.')}\\?v=([\\w-]{22})`).exec(shell.text)?.[1];
    expect(`"${versioned}"`).toBe(etag);
    const immutable = await request(service.baseUrl).get(`/dashboard/assets/${file}?v=${versioned}`).set('Accept-Encoding', 'identity');
    expect(immutable.headers['cache-control']).toContain('immutable');
    expect(plain.headers['cache-control']).toBe('no-cache');
  });

  it('has no source of its own at another host', async () => {
    const res = await request(service.baseUrl).get(`/dashboard/assets/${file}`).set('Accept-Encoding', 'identity');
    expect(res.text).not.toMatch(/https?:\/\/(?!www\.w3\.org)[a-z0-9.-]+\.[a-z]{2,}\//i);
  });
});
