import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { loadServiceClient, ServiceClientNotBuiltError } from './bundle';

describe('the built page script, as the gateway reads it', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'promptpix-client-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('is the built file, its gzip form and a strong validator of its content', () => {
    writeFileSync(join(dir, 'service-client.js'), '"use strict";(()=>{})();');
    writeFileSync(join(dir, 'service-client.js.gz'), gzipSync('"use strict";(()=>{})();'));
    const bundle = loadServiceClient(dir);
    expect(bundle.code).toBe('"use strict";(()=>{})();');
    expect(bundle.hash).toMatch(/^[\w-]{22}$/);
    writeFileSync(join(dir, 'service-client.js'), '"use strict";(()=>{1})();');
    expect(loadServiceClient(dir).hash).not.toBe(bundle.hash);
  });

  it('is missing before `npm run build`, and says so', () => {
    expect(() => loadServiceClient(dir)).toThrow(ServiceClientNotBuiltError);
    expect(() => loadServiceClient(dir)).toThrow(/npm run build/);
  });
});
