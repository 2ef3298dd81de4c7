// Builds packages/sdk/dist so plain `node` (no tsx, no bundler) can load the SDK: an ES module and
// a CommonJS bundle (esbuild), and type declarations (the TypeScript compiler). Runs on `npm install`.
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
rmSync(dist, { recursive: true, force: true });

// The SDK imports @promptpix/contracts for types only, so a bundle holds nothing but its own sources.
const bundle = { entryPoints: [join(root, 'src', 'index.ts')], bundle: true, platform: 'neutral', target: 'es2022', sourcemap: true, logLevel: 'warning' };
await Promise.all([
  build({ ...bundle, format: 'esm', outfile: join(dist, 'index.mjs') }),
  build({ ...bundle, format: 'cjs', outfile: join(dist, 'index.cjs') }),
]);

let ts;
try {
  ts = createRequire(import.meta.url)('typescript');
} catch {
  // A production install (--omit=dev) has no compiler; the bundles work without declarations.
  console.warn('@promptpix/sdk: typescript is not installed, so dist has no type declarations');
  process.exit(0);
}
const configFile = join(root, 'tsconfig.build.json');
const config = ts.parseJsonConfigFileContent(ts.readConfigFile(configFile, ts.sys.readFile).config, ts.sys, root);
const emitted = ts.createProgram(config.fileNames, config.options).emit();
if (emitted.diagnostics.length > 0) {
  console.error(ts.formatDiagnostics(emitted.diagnostics, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => root, getNewLine: () => '\n' }));
  process.exit(1);
}
