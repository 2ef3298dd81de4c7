import { newSigningSecret, promptSignatureMessage, promptSignatureValid, signPromptFields } from './prompt-signature';

describe('prompt signatures', () => {
  const secret = 'pks_test-secret';
  const fields = { prompt: 'a red fox', style: 'watercolor', width: 512, height: 768 };
  const sig = signPromptFields(secret, fields)!;

  it('is stable, url-safe and matches a fixed vector (other languages sign the same bytes)', () => {
    expect(promptSignatureMessage(fields)).toBe('promptpix-sig-v1\na red fox\nwatercolor\n512x768\n\n\n\n');
    expect(sig).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(signPromptFields(secret, { ...fields })).toBe(sig);
  });

  it.each([
    ['the same fields', fields, true],
    ['the prompt with other whitespace', { ...fields, prompt: '  a  red\tfox ' }, true],
    ['another prompt', { ...fields, prompt: 'a red fix' }, false],
    ['another style', { ...fields, style: 'cartoon' }, false],
    ['no style', { ...fields, style: undefined }, false],
    ['another size', { ...fields, width: 1024 }, false],
    ['a seed', { ...fields, seed: 7 }, false],
    ['a negative prompt', { ...fields, negativePrompt: 'blur' }, false],
    ['a character', { ...fields, character: '00000000-0000-4000-8000-000000000000' }, false],
    ['an age', { ...fields, age: 'kids' }, false],
  ])('checked against %s → %s', (_label, other, valid) => {
    expect(promptSignatureValid(secret, other, sig)).toBe(valid);
  });

  it.each([
    ['another secret', () => promptSignatureValid('pks_other', fields, sig)],
    ['a tampered signature', () => promptSignatureValid(secret, fields, sig.slice(0, -1) + (sig.endsWith('A') ? 'B' : 'A'))],
    ['a truncated signature', () => promptSignatureValid(secret, fields, sig.slice(0, 20))],
    ['an empty signature', () => promptSignatureValid(secret, fields, '')],
    ['a style with a line break', () => promptSignatureValid(secret, { ...fields, style: 'a\nb' }, sig)],
  ])('refuses %s', (_label, check) => expect(check()).toBe(false));

  it('defaults the size to 1024 as the embed element does', () => {
    expect(signPromptFields(secret, { prompt: 'x' })).toBe(signPromptFields(secret, { prompt: 'x', width: 1024, height: 1024 }));
  });

  it('makes distinct secrets', () => {
    expect(newSigningSecret()).toMatch(/^pks_[A-Za-z0-9_-]{43}$/);
    expect(newSigningSecret()).not.toBe(newSigningSecret());
  });
});
