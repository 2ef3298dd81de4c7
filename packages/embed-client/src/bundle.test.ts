import { buildServiceClient, serviceClientBundle } from './bundle';

describe('the page script bundle', () => {
  it('is one minified, self-contained script under 5 KB gzipped', async () => {
    const bundle = await buildServiceClient();
    expect(bundle.code.startsWith('"use strict";(()=>{')).toBe(true);
    expect(bundle.code).not.toMatch(/\brequire\(|\bimport\s*[({]|\bexport\s/);
    expect(bundle.gzip.length).toBeLessThan(5 * 1024);
    expect(bundle.hash).toMatch(/^[\w-]{22}$/);
  });

  it('is built once per process', async () => {
    const first = await serviceClientBundle();
    expect(await serviceClientBundle()).toBe(first);
  });
});
