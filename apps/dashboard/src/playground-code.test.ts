import { curlCommand, maskedKey, requestBody, sdkCall } from './playground-code';

describe('the playground equivalent calls', () => {
  it.each([
    ['sk_live_Ab12', 'sk_live_Ab12…'],
    [null, 'sk_live_…'],
  ])('masks the key (%s)', (prefix, shown) => {
    expect(maskedKey(prefix)).toBe(shown);
  });

  it('sends only what was set', () => {
    expect(requestBody({ prompt: 'a fox', style: '', seed: undefined, negativePrompt: '', width: 512, mode: 'generate' })).toEqual({
      prompt: 'a fox',
      width: 512,
      mode: 'generate',
    });
  });

  it('quotes the prompt for the shell, apostrophes included', () => {
    const curl = curlCommand('http://localhost:3000', 'sk_live_Ab12…', { prompt: "the fox's den", seed: 7 });
    expect(curl).toBe(
      [
        `curl -s -X POST 'http://localhost:3000/api/v1/generate' \\`,
        `  -H 'Authorization: Bearer sk_live_Ab12…' \\`,
        `  -H 'Content-Type: application/json' \\`,
        `  -d '{"prompt":"the fox'\\''s den","seed":7}'`,
      ].join('\n'),
    );
  });

  it.each([
    [{ prompt: 'a fox', mode: 'generate' as const }, 'const job = await pp.generateAndWait({\n  "prompt": "a fox"\n});'],
    [{ prompt: 'a fox', mode: 'instant' as const }, 'const match = await pp.instant({\n  "prompt": "a fox"\n});'],
  ])('calls the SDK method of the mode (%j)', (input, call) => {
    const code = sdkCall('http://localhost:3000', 'sk_live_Ab12…', input);
    expect(code).toContain(call);
    expect(code).toContain('sk_live_Ab12…');
    expect(code).toContain(`baseUrl: "http://localhost:3000"`);
  });
});
