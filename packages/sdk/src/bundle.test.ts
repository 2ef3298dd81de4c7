import { join, relative } from 'node:path';
import { build } from 'esbuild';

/**
 * The SDK must bundle for a browser on its own: wire types come from @promptpix/contracts as
 * types only, so neither the schemas nor zod may end up in the bundle.
 */
describe('browser bundle', () => {
  it('holds only the SDK sources: no zod, no contracts, no Node built-ins', async () => {
    const result = await build({
      entryPoints: [join(__dirname, 'index.ts')],
      bundle: true,
      write: false,
      minify: true,
      format: 'esm',
      platform: 'browser',
      target: ['es2022'],
      metafile: true,
      logLevel: 'silent',
    });
    const inputs = Object.keys(result.metafile.inputs).map((path) => relative(__dirname, join(process.cwd(), path)));
    expect(inputs.filter((path) => path.startsWith('..') || path.includes('node_modules'))).toEqual([]);
    const code = result.outputFiles[0].text;
    expect(code).not.toMatch(/\bzod\b|require\(|node:/);
    // Small enough to ship to a page without thinking twice.
    expect(code.length).toBeLessThan(20_000);
  });
});
