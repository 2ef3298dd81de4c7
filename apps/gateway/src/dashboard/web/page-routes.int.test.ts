/**
 * The dashboard's app shell and assets (./page-routes.ts): one HTML document for every
 * client-side route, with a strict CSP; the built files (apps/dashboard, dist/dashboard/) under
 * hashed names, cached for good, with ETags and gzip; API paths untouched.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { get, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import request from 'supertest';
import { startTestService, type TestService } from '@promptpix/server/testing';
import { dashboardCsp, dashboardPageRoutes } from './page-routes';

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
  it.each(['/dashboard', '/dashboard/', '/dashboard/sign-in', '/dashboard/images', '/dashboard/images/abc123', '/dashboard/keys', '/dashboard/usage'])(
    'GET %s serves the shell with a strict CSP, not cached',
    async (path) => {
      const res = await request(service.baseUrl).get(path);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['cache-control']).toBe('no-store');
      const csp = res.headers['content-security-policy'];
      for (const directive of [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "connect-src 'self'",
        "frame-ancestors 'none'",
        "base-uri 'none'",
        "form-action 'self'",
      ])
        expect(csp).toContain(directive);
      expect(csp).toMatch(/img-src 'self' data: blob:/);
      expect(csp).not.toContain('unsafe-inline');
      expect(res.text).toContain('<div id="app">');
      expect(res.text).toMatch(/<script defer src="\/dashboard\/assets\/app\.[0-9a-f]{16}\.js"><\/script>/);
      expect(res.text).toMatch(/<link rel="stylesheet" href="\/dashboard\/assets\/app\.[0-9a-f]{16}\.css">/);
      // No inline script or style: the CSP would block them.
      expect(res.text).not.toMatch(/<script>(?!<)/);
      expect(res.text).not.toMatch(/<style|style="/);
    },
  );

  it('adds the storage origin to img-src when images are served from another host', () => {
    const csp = dashboardCsp({
      publicBaseUrl: 'https://pix.example.com',
      storage: { publicUrl: (k: string) => `https://bucket.s3.example.net/images/${k}` } as never,
    });
    expect(csp).toContain("img-src 'self' data: blob: https://bucket.s3.example.net;");
    const same = dashboardCsp({
      publicBaseUrl: 'https://pix.example.com',
      storage: { publicUrl: (k: string) => `https://pix.example.com/files/${k}` } as never,
    });
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
  ['app.js', 'js', /^text\/javascript; charset=utf-8$/],
  ['app.css', 'css', /^text\/css; charset=utf-8$/],
])('the built %s', (entry, ext, type) => {
  /** The hashed file the shell links, e.g. /dashboard/assets/app.3f9a1c0d5e7b2a48.js. */
  const linked = async () => {
    const shell = await request(service.baseUrl).get('/dashboard');
    const path = new RegExp(`/dashboard/assets/app\\.[0-9a-f]{16}\\.${ext}`).exec(shell.text)?.[0];
    expect(path).toBeDefined();
    return path!;
  };

  it('is served under its hashed name with its type, cached for good, a strong ETag, 304 on revalidation, and gzip when accepted', async () => {
    const path = await linked();
    const hash = /\.([0-9a-f]{16})\./.exec(path)![1];
    const plain = await request(service.baseUrl).get(path).set('Accept-Encoding', 'identity');
    expect(plain.status).toBe(200);
    expect(plain.headers['content-type']).toMatch(type);
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toContain('Accept-Encoding');
    const etag = plain.headers.etag;
    expect(etag).toBe(`"${hash}"`);
    const body = Buffer.from(plain.text ?? '', 'utf8');
    expect(body.length).toBeGreaterThan(1000);
    // The name is the content's hash.
    expect(createHash('sha256').update(body).digest('hex').slice(0, 16)).toBe(hash);

    const again = await request(service.baseUrl).get(path).set('Accept-Encoding', 'identity').set('If-None-Match', etag);
    expect(again.status).toBe(304);

    const gz = await raw(`${service.baseUrl}${path}`, { 'Accept-Encoding': 'gzip, deflate' });
    expect(gz.status).toBe(200);
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(gz.headers.etag).toBe(etag.replace(/"$/, '-gz"'));
    expect(gunzipSync(gz.body).toString('utf8')).toBe(plain.text);
    expect(gz.body.length).toBeLessThan(body.length / 2);
    const gz304 = await raw(`${service.baseUrl}${path}`, { 'Accept-Encoding': 'gzip', 'If-None-Match': gz.headers.etag as string });
    expect(gz304.status).toBe(304);

    // The entry's plain name serves the same file and revalidates.
    const bare = await request(service.baseUrl).get(`/dashboard/assets/${entry}`).set('Accept-Encoding', 'identity');
    expect(bare.status).toBe(200);
    expect(bare.headers['cache-control']).toBe('no-cache');
    expect(bare.headers.etag).toBe(etag);
    // Another hash is not this build's: 404, not the shell.
    const other = await request(service.baseUrl).get(`/dashboard/assets/app.0000000000000000.${ext}`);
    expect(other.status).toBe(404);
    expect(other.text).not.toContain('<div id="app">');
  });

  it('has no source of its own at another host', async () => {
    const res = await request(service.baseUrl)
      .get(await linked())
      .set('Accept-Encoding', 'identity');
    expect(res.text).not.toMatch(/https?:\/\/(?!www\.w3\.org)[a-z0-9.-]+\.[a-z]{2,}\//i);
  });
});

describe('without the built files', () => {
  it('the gateway stops at start, naming the command that makes them', () => {
    const empty = mkdtempSync(join(tmpdir(), 'promptpix-no-dashboard-'));
    try {
      expect(() =>
        dashboardPageRoutes(
          { publicBaseUrl: 'https://pix.example.com', storage: { publicUrl: (k: string) => `https://pix.example.com/files/${k}` } as never },
          empty,
        ),
      ).toThrow(/dashboard's built files are missing .*manifest\.json.*run `npm run build`/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
