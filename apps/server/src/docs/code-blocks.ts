/**
 * The fenced code blocks of the documentation (README.md and docs/**), and which of them are
 * samples a test runs: a block fenced ```sh runnable is bash, run against a fresh embedded
 * service (docs/contributing.md, "Documentation").
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

export interface CodeBlock {
  /** Path relative to the repository root. */
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The info string's first word (`sh`, `ts`, …), empty when none. */
  lang: string;
  /** The words after it (`runnable`, `illustrative`). */
  flags: string[];
  code: string;
}

const FENCE = /^(\s*)(`{3,}|~{3,})(.*)$/;

/** Every fenced block of one Markdown text, in order. */
export function codeBlocks(file: string, markdown: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  const lines = markdown.split('\n');
  let open: { fence: string; line: number; info: string[]; body: string[]; indent: number } | null = null;
  lines.forEach((text, index) => {
    const fence = FENCE.exec(text);
    if (!open) {
      if (fence) open = { fence: fence[2], line: index + 1, info: fence[3].trim().split(/\s+/).filter(Boolean), body: [], indent: fence[1].length };
      return;
    }
    if (fence?.[2].startsWith(open.fence) && fence[3].trim() === '') {
      const [lang = '', ...flags] = open.info;
      blocks.push({ file, line: open.line, lang, flags, code: open.body.join('\n') });
      open = null;
      return;
    }
    open.body.push(text.slice(Math.min(open.indent, text.length - text.trimStart().length)));
  });
  return blocks;
}

export const isRunnable = (block: CodeBlock) => block.lang === 'sh' && block.flags.includes('runnable');

/**
 * A sample of the public or operator HTTP API (curl to an /api/ path) or of the SDK. These must be
 * runnable, so the docs cannot drift from the service; a block that cannot run against a fresh
 * embedded service (a browser's EventSource, a webhook receiver) says so with `illustrative`.
 */
export function isApiSample(block: CodeBlock): boolean {
  if (block.flags.includes('illustrative')) return false;
  const curlsTheApi = /\bcurl\b/.test(block.code) && /\/api\//.test(block.code);
  const callsTheSdk = /\bnew PromptPix\(|\bpp\.[a-zA-Z]+\(/.test(block.code);
  return curlsTheApi || callsTheSdk;
}

/** README.md and every Markdown file under docs/, paths relative to `root`. */
export function documentationFiles(root: string): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return walk(path);
      return entry.name.endsWith('.md') ? [path] : [];
    });
  return [
    'README.md',
    ...walk(join(root, 'docs'))
      .map((path) => relative(root, path))
      .sort(),
  ];
}

export const documentationBlocks = (root: string): CodeBlock[] =>
  documentationFiles(root).flatMap((file) => codeBlocks(file, readFileSync(join(root, file), 'utf8')));
