/**
 * The models-file samples of the docs are real: every ```json block with "default" and "models"
 * in docs/operating/models.md and docs/backends/*.md is accepted by the schema. `${NAME}`
 * references get a value; a workflow file path (`…WorkflowFile`, `workflowFile`) is read from
 * docs/backends/ by its base name, where the sample workflows live.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parseModelsFile } from './models-file';

const ROOT = join(__dirname, '../../../..');
const pages = [
  'docs/operating/models.md',
  ...readdirSync(join(ROOT, 'docs/backends'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/backends/${f}`),
];

const samples = pages.flatMap((page) =>
  [...readFileSync(join(ROOT, page), 'utf8').matchAll(/```json\n([\s\S]*?)```/g)]
    .map((m) => m[1])
    .filter((text) => /"default"/.test(text) && /"models"/.test(text))
    .map((text, i) => [`${page} #${i + 1}`, text] as const),
);

const localWorkflows = (value: unknown, key = ''): unknown => {
  if (typeof value === 'string' && /workflowFile$/i.test(key)) return join(ROOT, 'docs/backends', basename(value));
  if (Array.isArray(value)) return value.map((v) => localWorkflows(v));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, localWorkflows(v, k)]));
  return value;
};

describe('models-file samples in the docs', () => {
  it('finds the samples of the models page and the backend pages', () => {
    expect(samples.map(([name]) => name.split(' ')[0])).toEqual(
      expect.arrayContaining([
        'docs/operating/models.md',
        'docs/backends/a1111.md',
        'docs/backends/comfyui.md',
        'docs/backends/openai.md',
        'docs/backends/replicate.md',
      ]),
    );
  });

  it.each(samples)('%s is accepted', (_name, text) => {
    const env = Object.fromEntries([...text.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((m) => [m[1], 'set-in-the-environment']));
    const file = parseModelsFile(localWorkflows(JSON.parse(text)), env, { timeoutMs: undefined, httpAttempts: 3 });
    expect(file.entries.length).toBeGreaterThan(0);
  });
});
