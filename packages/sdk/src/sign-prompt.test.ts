import { promptSignatureValid, signPromptFields } from '@promptpix/core';
import { signPrompt } from './sign-prompt';

/** The SDK signs in Web Crypto, the service checks in node:crypto: the two must agree byte for byte. */
describe('signPrompt', () => {
  const secret = 'pks_shared-secret';

  it.each([
    [{ prompt: 'a red fox' }],
    [{ prompt: '  a  red\n fox ', style: 'watercolor', width: 512, height: 768 }],
    [
      {
        prompt: 'ünïcödé 🦊 prompt',
        style: 'cinematic',
        character: '00000000-0000-4000-8000-000000000000',
        age: 'kids' as const,
        seed: 42,
        negativePrompt: 'blur,  noise',
      },
    ],
  ])('makes the signature the service accepts for %j', async (fields) => {
    const sig = await signPrompt(secret, fields);
    expect(sig).toBe(signPromptFields(secret, fields));
    expect(promptSignatureValid(secret, fields, sig)).toBe(true);
    expect(promptSignatureValid(secret, { ...fields, prompt: `${fields.prompt} and more` }, sig)).toBe(false);
  });

  it('refuses a style with a line break rather than sign an ambiguous message', async () => {
    await expect(signPrompt(secret, { prompt: 'x', style: 'a\nb' })).rejects.toThrow(TypeError);
  });
});
