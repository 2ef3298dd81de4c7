import { blockedModelText } from './model-texts';
import { PROMPT_BLOCKED_REASON, PROMPT_NOT_FOR_CHILDREN_REASON, createPromptSafety } from './prompt-safety';

describe('blockedModelText', () => {
  const safety = createPromptSafety();
  const gory = 'a scene full of blood and gore, {prompt}';

  it.each([
    ['a clean prompt, no template', { prompt: 'a red kite' }, null],
    ['a clean prompt and template for kids', { prompt: 'a red kite', promptTemplate: 'watercolor of {prompt}', ageBucket: 'kids' as const }, null],
    ['a gory template for adults', { prompt: 'a red kite', promptTemplate: gory, ageBucket: 'adults' as const }, null],
    [
      'a gory template for kids',
      { prompt: 'a red kite', promptTemplate: gory, ageBucket: 'kids' as const },
      { field: 'style', reason: `The style's prompt template is not allowed here: ${PROMPT_NOT_FOR_CHILDREN_REASON}` },
    ],
    [
      'a blocked template for every age',
      { prompt: 'a red kite', promptTemplate: 'fucking {prompt}' },
      { field: 'style', reason: `The style's prompt template is not allowed here: ${PROMPT_BLOCKED_REASON}` },
    ],
    [
      'the prompt is named first',
      { prompt: 'gore', promptTemplate: gory, ageBucket: 'kids' as const },
      { field: 'prompt', reason: PROMPT_NOT_FOR_CHILDREN_REASON },
    ],
  ])('%s', (_name, texts, verdict) => {
    expect(blockedModelText(safety, texts)).toEqual(verdict);
  });

  it('no filter configured lets everything through', () => {
    expect(blockedModelText(null, { prompt: 'gore', promptTemplate: gory, ageBucket: 'kids' })).toBeNull();
  });
});
