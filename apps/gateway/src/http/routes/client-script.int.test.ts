import express from 'express';
import request from 'supertest';
import { startTestService, type TestService } from '@promptpix/server/testing';
import type { GatewayDeps } from '../../deps';
import { demoRoutes } from './demo';

describe('GET /service-client.js and GET /demo', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService('embedded');
  });
  afterAll(() => service.stop());

  it('serves the page script minified, gzipped when accepted, cacheable five minutes, revalidated by ETag', async () => {
    const plain = await request(service.baseUrl).get('/service-client.js').set('Accept-Encoding', 'identity');
    expect(plain.status).toBe(200);
    expect(plain.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(plain.headers['cache-control']).toBe('public, max-age=300');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toMatch(/Accept-Encoding/);
    expect(plain.headers.etag).toMatch(/^"[\w-]{22}"$/);
    expect(plain.text.startsWith('"use strict";(()=>{')).toBe(true);
    expect(plain.text).toContain('/api/v1/embed/resolve');

    const zipped = await request(service.baseUrl)
      .get('/service-client.js')
      .set('Accept-Encoding', 'gzip, deflate, br')
      .buffer(true)
      .parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers.etag).toBe(plain.headers.etag.replace(/"$/, '-gz"'));
    expect(Number(zipped.headers['content-length'])).toBeLessThan(5 * 1024);

    const again = await request(service.baseUrl).get('/service-client.js').set('Accept-Encoding', 'identity').set('If-None-Match', plain.headers.etag);
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
  });

  it('puts the publishable key from ?key= into the script tag, escaped', async () => {
    const key = 'pk_live_abc"><script>alert(1)</script>';
    const res = await request(service.baseUrl).get('/demo').query({ key });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.text).toContain('<script src="/service-client.js" data-key="pk_live_abc&#34;&#62;&#60;script&#62;alert(1)&#60;/script&#62;"></script>');
    expect(res.text).not.toContain('<script>alert(1)');
    expect(res.text).toContain('data-service-prompt=');
  });

  it('refuses to put a secret key or no key into the page', async () => {
    for (const query of [{ key: 'sk_live_0123456789abcdef0123456789abcdef' }, {}, { key: 'whatever' }]) {
      const res = await request(service.baseUrl).get('/demo').query(query);
      expect(res.status).toBe(200);
      expect(res.text).not.toContain('service-client.js" data-key');
      expect(res.text).not.toContain('sk_live_0123');
      expect(res.text).toContain('id="key-note"');
    }
  });

  it('is not served when disabled (production)', async () => {
    const app = express().use(demoRoutes({ publicBaseUrl: 'http://svc.test' } as GatewayDeps, { enabled: false }));
    expect((await request(app).get('/demo')).status).toBe(404);
  });
});
