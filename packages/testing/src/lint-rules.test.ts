import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

/**
 * The boundaries npm run lint enforces with Biome, checked on small fixture trees linted with the
 * repository's own biome.json: a deep import into another package's src/ and an import cycle fail,
 * the same files through entry points and without the cycle pass. (boundaries.test.ts checks what
 * Biome cannot: declared workspace dependencies, testing entries in production code.)
 */

const ROOT = resolve(__dirname, '../../..');
const BIOME = join(ROOT, 'node_modules', '.bin', 'biome');

function lint(files: Record<string, string>): { status: number | null; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'lint-rules-'));
  try {
    copyFileSync(join(ROOT, 'biome.json'), join(dir, 'biome.json'));
    // The configuration reads .gitignore through git (vcs.useIgnoreFile): the fixture is a repository of its own.
    mkdirSync(join(dir, '.git'));
    writeFileSync(join(dir, '.gitignore'), 'node_modules\n');
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'fixture', private: true, workspaces: ['packages/*'] }));
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    const run = spawnSync(BIOME, ['lint', '--max-diagnostics=100', '--colors=off', '.'], { cwd: dir, encoding: 'utf8', timeout: 20_000 });
    return { status: run.status, output: `${run.stdout}${run.stderr}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const packageJson = (name: string) => JSON.stringify({ name, version: '0.1.0', private: true, exports: { '.': './src/index.ts' } });

const clean = {
  'packages/a/package.json': packageJson('@promptpix/a'),
  'packages/a/src/x.ts': "import { y } from '@promptpix/b';\n\nexport const x = (): number => y + 1;\n",
  'packages/a/src/first.ts': "import { second } from './second';\n\nexport const first = (): string => `first, then ${second}`;\n",
  'packages/a/src/second.ts': "export const second = 'second';\n",
  'packages/b/package.json': packageJson('@promptpix/b'),
  'packages/b/src/index.ts': "export { y } from './y';\n",
  'packages/b/src/y.ts': 'export const y = 1;\n',
};

describe('npm run lint (Biome with the repository biome.json)', () => {
  it('passes a tree that imports packages through their entry points and has no cycle', () => {
    const { status, output } = lint(clean);
    expect(output).not.toMatch(/lint\/\w+\/\w+/);
    expect(status).toBe(0);
  });

  it("fails a deep import into another package's src/ (lint/style/noRestrictedImports)", () => {
    const { status, output } = lint({ ...clean, 'packages/a/src/x.ts': "import { y } from '@promptpix/b/src/y';\n\nexport const x = (): number => y + 1;\n" });
    expect(output).toContain('lint/style/noRestrictedImports');
    expect(output).toContain('packages/a/src/x.ts');
    expect(status).not.toBe(0);
  });

  it('fails two files that import each other (lint/suspicious/noImportCycles)', () => {
    const { status, output } = lint({
      ...clean,
      'packages/a/src/second.ts': "import { first } from './first';\n\nexport const second = 'second';\nexport const again = (): string => first();\n",
    });
    expect(output).toContain('lint/suspicious/noImportCycles');
    expect(status).not.toBe(0);
  });
});
