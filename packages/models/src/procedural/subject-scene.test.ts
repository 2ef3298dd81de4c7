import type { ModelRequest } from '@promptpix/core';
import { renderProcedural } from './procedural-model';
import { composeScene } from './scene';

const request = (over: Partial<ModelRequest> = {}): ModelRequest => ({
  prompt: 'a lighthouse on a cliff at sunset',
  strength: 1,
  seed: 7,
  width: 128,
  height: 128,
  ...over,
});

describe('the procedural model draws the prompt’s subjects', () => {
  it('says what it drew in revisedPrompt, the style included', async () => {
    expect((await renderProcedural(request({ style: 'watercolor' }))).revisedPrompt).toBe('a lighthouse on a cliff, sunset palette, watercolor');
    expect((await renderProcedural(request({ prompt: 'three red cats in the rain' }))).revisedPrompt).toBe('three red cats, rain');
    expect((await renderProcedural(request({ prompt: 'two red apples' }))).revisedPrompt).toBe('two red apples');
    expect((await renderProcedural(request({ prompt: 'a castle on a hill at night' }))).revisedPrompt).toBe('a castle on a hill, night sky');
    // No icon comes near a table: the dog is drawn, the table is not named.
    expect((await renderProcedural(request({ prompt: 'a puppy under a table' }))).revisedPrompt).toBe('a dog');
    expect((await renderProcedural(request({ prompt: 'an automobile beside a beacon tower', style: 'no-such-style' }))).revisedPrompt).toBe(
      'an automobile beside a lighthouse',
    );
  });

  it('leaves out a word it cannot draw, without an error', async () => {
    const image = await renderProcedural(request({ prompt: 'a glorp at night' }));
    expect(image.revisedPrompt).toBe('night sky');
    expect(composeScene({ ...request({ prompt: 'a glorp at night' }) }).subjects).toEqual([]);
  });

  it('draws the icon into the scene, and the same request gives the same bytes', async () => {
    const { svg } = composeScene(request());
    expect(svg).toContain('viewBox="0 0 128 128"');
    const first = await renderProcedural(request({ style: 'cartoon' }));
    expect((await renderProcedural(request({ style: 'cartoon' }))).data.equals(first.data)).toBe(true);
  });
});
