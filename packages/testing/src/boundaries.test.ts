import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { checkBoundaries, findCycles } from './boundaries';

const ROOT = resolve(__dirname, '../../..');

it('the workspace reaches packages only through their entry points, declares them, keeps test support out of production code and has no import cycles', () => {
  expect(checkBoundaries(ROOT, ['bench/src', 'scripts'])).toEqual([]);
});

describe('on fixtures', () => {
  let root: string;
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  const pkg = (dir: string, name: string, extra: object = {}) =>
    write(`${dir}/package.json`, JSON.stringify({ name, exports: { '.': './src/index.ts', './testing': './src/testing/index.ts' }, ...extra }));

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'promptpix-boundaries-'));
    write('package.json', JSON.stringify({ workspaces: ['packages/*'] }));
    pkg('packages/a', '@promptpix/a');
    write('packages/a/src/index.ts', "export { inner } from './inner';\n");
    write('packages/a/src/inner.ts', 'export const inner = 1;\n');
    write('packages/a/src/testing/index.ts', 'export const fixture = 1;\n');
    pkg('packages/b', '@promptpix/b', { dependencies: { '@promptpix/a': '0.1.0' } });
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('passes imports through entry points', () => {
    write('packages/b/src/index.ts', "import { inner } from '@promptpix/a';\nexport const b = inner;\n");
    write('packages/b/src/b.test.ts', "import { fixture } from '@promptpix/a/testing';\nvoid fixture;\n");
    expect(checkBoundaries(root)).toEqual([]);
  });

  it('finds a deep import, by package path and by relative path', () => {
    write(
      'packages/b/src/index.ts',
      "import { inner } from '@promptpix/a/src/inner';\nimport { inner as again } from '../../a/src/inner';\nexport const b = inner + again;\n",
    );
    expect(checkBoundaries(root)).toEqual([
      { kind: 'deep-import', file: 'packages/b/src/index.ts', detail: expect.stringContaining('@promptpix/a/src/inner is not an entry point of @promptpix/a') },
      { kind: 'deep-import', file: 'packages/b/src/index.ts', detail: expect.stringContaining("reaches into @promptpix/a's files") },
    ]);
  });

  it('finds an undeclared workspace dependency', () => {
    pkg('packages/c', '@promptpix/c');
    write('packages/c/src/index.ts', "export { inner } from '@promptpix/a';\n");
    expect(checkBoundaries(root)).toEqual([
      { kind: 'undeclared-dependency', file: 'packages/c/src/index.ts', detail: expect.stringContaining('@promptpix/a') },
    ]);
  });

  it('finds test support imported by production code', () => {
    write('packages/b/src/index.ts', "export { fixture } from '@promptpix/a/testing';\n");
    expect(checkBoundaries(root)).toEqual([
      { kind: 'test-support-in-production', file: 'packages/b/src/index.ts', detail: expect.stringContaining('@promptpix/a/testing') },
    ]);
  });

  it('finds an import cycle, type-only imports included', () => {
    write('packages/b/src/index.ts', "export * from './x';\n");
    write('packages/b/src/x.ts', "import type { Y } from './y';\nexport interface X { y?: Y }\n");
    write('packages/b/src/y.ts', "import type { X } from './x';\nexport interface Y { x?: X }\n");
    expect(checkBoundaries(root)).toEqual([{ kind: 'cycle', file: 'packages/b/src/x.ts', detail: 'import cycle: packages/b/src/x.ts → packages/b/src/y.ts' }]);
  });
});

it('findCycles reports each strongly connected group once, and a module importing itself', () => {
  const graph = new Map<string, Set<string>>([
    ['a', new Set(['b'])],
    ['b', new Set(['c'])],
    ['c', new Set(['a', 'd'])],
    ['d', new Set()],
    ['e', new Set(['e'])],
  ]);
  expect(findCycles(graph)).toEqual([['a', 'b', 'c'], ['e']]);
});
