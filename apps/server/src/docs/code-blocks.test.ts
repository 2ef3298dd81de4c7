import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { codeBlocks, documentationBlocks, documentationFiles, isApiSample, isRunnable, type CodeBlock } from './code-blocks';

const ROOT = resolve(__dirname, '../../../..');
const block = (lang: string, code: string, flags: string[] = []): CodeBlock => ({ file: 'x.md', line: 1, lang, flags, code });

describe('codeBlocks', () => {
  it('finds each fenced block with its line, language and flags', () => {
    const markdown = ['# Page', '', '```sh runnable', 'curl -s "$BASE_URL/api/health"', '```', 'text', '```ts', 'const a = 1;', '', 'const b = 2;', '```'].join(
      '\n',
    );
    expect(codeBlocks('p.md', markdown)).toEqual([
      { file: 'p.md', line: 3, lang: 'sh', flags: ['runnable'], code: 'curl -s "$BASE_URL/api/health"' },
      { file: 'p.md', line: 7, lang: 'ts', flags: [], code: 'const a = 1;\n\nconst b = 2;' },
    ]);
  });

  it('keeps a shorter fence inside a longer one, and strips a list item indent', () => {
    const markdown = ['````md', '```sh', 'inner', '```', '````', '- item', '  ```js', '  x();', '  ```'].join('\n');
    expect(codeBlocks('p.md', markdown).map((b) => [b.line, b.lang, b.code])).toEqual([
      [1, 'md', '```sh\ninner\n```'],
      [7, 'js', 'x();'],
    ]);
  });
});

describe('which blocks are API samples', () => {
  it.each([
    ['a curl to the public API', block('sh', 'curl -s "$BASE_URL/api/v1/job/$JOB"'), true],
    ['a curl continued on the next line', block('sh', 'curl -s -X POST \\\n  "$BASE_URL/api/v1/generate"'), true],
    ['a curl to the operator API', block('sh', 'curl -s "$BASE_URL/admin/api/v1/queue"'), true],
    ['an SDK call', block('ts', 'await pp.pin(imageId);'), true],
    ['an SDK client', block('js', 'const pp = new PromptPix({ baseUrl, apiKey });'), true],
    ['a block marked illustrative', block('ts', 'events.close(); await pp.job(id);', ['illustrative']), false],
    ['a docker command', block('sh', 'docker compose up -d'), false],
    ['a curl to a download site', block('sh', 'curl -sL https://example.com/x.tgz'), false],
    ['configuration', block('sh', 'export DATABASE_URL=postgresql://…'), false],
  ])('%s', (_name, sample, expected) => {
    expect(isApiSample(sample)).toBe(expected);
  });

  it('runs only sh blocks marked runnable', () => {
    expect(isRunnable(block('sh', 'true', ['runnable']))).toBe(true);
    expect(isRunnable(block('sh', 'true'))).toBe(false);
    expect(isRunnable(block('ts', 'true', ['runnable']))).toBe(false);
  });
});

describe('the documentation', () => {
  it('marks every API sample runnable (or says why it cannot run)', () => {
    const left = documentationBlocks(ROOT)
      .filter((b) => isApiSample(b) && !isRunnable(b))
      .map((b) => `${b.file}:${b.line}`);
    expect(left).toEqual([]);
  });

  it('starts every page with what the reader will be able to do', () => {
    const pages = documentationFiles(ROOT).filter((file) => file.startsWith('docs/'));
    expect(pages.length).toBeGreaterThan(20);
    const without = pages.filter((file) => {
      const [title, blank, lead] = readFileSync(join(ROOT, file), 'utf8').split('\n');
      // One sentence of prose under the title: not a heading, fence, table, list or quote.
      return !(title.startsWith('# ') && blank === '' && /^[A-Za-z*_`]/.test(lead ?? '') && /[.:]\s*$/.test(lead));
    });
    expect(without).toEqual([]);
  });

  it('links only to files that exist, so every entry of the map is one click away', () => {
    const broken = documentationFiles(ROOT).flatMap((file) => {
      const text = readFileSync(join(ROOT, file), 'utf8').replace(/```[\s\S]*?```/g, '');
      const targets = [...text.matchAll(/\]\(([^)\s]+)\)|<img[^>]+src="([^"]+)"/g)].map((m) => m[1] ?? m[2]);
      return targets
        .filter((target) => !/^(https?:|mailto:|#)/.test(target))
        .map((target) => join(dirname(file), target.split('#')[0]))
        .filter((target) => !existsSync(join(ROOT, target)))
        .map((target) => `${file} → ${target}`);
    });
    expect(broken).toEqual([]);
  });
});
