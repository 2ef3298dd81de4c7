import { constantTimeEqual, generateApiKey, hashApiKey, keyHint, keyKindOf } from './api-keys';
import { isUuid, uuidFromName } from './ids';
import { normalizePrompt } from './prompts';

describe('api keys', () => {
  it('generates prefixed keys with 40 base62 characters, all different', () => {
    const secret = generateApiKey('secret');
    const publishable = generateApiKey('publishable');
    expect(secret).toMatch(/^sk_live_[0-9A-Za-z]{40}$/);
    expect(publishable).toMatch(/^pk_live_[0-9A-Za-z]{40}$/);
    expect(new Set(Array.from({ length: 50 }, () => generateApiKey('secret'))).size).toBe(50);
  });

  it.each([
    [`sk_live_${'a'.repeat(40)}`, 'secret'],
    [`pk_live_${'B'.repeat(40)}`, 'publishable'],
    [`sk_test_${'a'.repeat(40)}`, null],
    ['sk_live_short', null],
    [`sk_live_${'a'.repeat(39)}!`, null],
    ['', null],
  ])('keyKindOf(%s) = %s', (key, kind) => expect(keyKindOf(key)).toBe(kind));

  it('hashes deterministically and hints only the prefix', () => {
    const key = generateApiKey('secret');
    expect(hashApiKey(key)).toBe(hashApiKey(key));
    expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(keyHint(key)).toHaveLength(12);
    expect(key.startsWith(keyHint(key))).toBe(true);
  });

  it('compares in constant time without false positives', () => {
    expect(constantTimeEqual('abc', 'abc')).toBe(true);
    expect(constantTimeEqual('abc', 'abd')).toBe(false);
    expect(constantTimeEqual('abc', 'abcd')).toBe(false);
  });
});

describe('normalizePrompt', () => {
  it.each([
    ['  A cat  ', 'A cat'],
    ['A\t\n cat   on  a mat', 'A cat on a mat'],
    ['Case Kept', 'Case Kept'],
    ['a\tcat', 'a cat'],
    ['a\u00a0cat', 'a cat'],
    ['a cat\non a mat', 'a cat on a mat'],
    ['a  cat', 'a cat'],
    ['one', 'one'],
  ])('%j → %j', (input, output) => expect(normalizePrompt(input)).toBe(output));
});

describe('uuidFromName', () => {
  it('is a stable uuid per name', () => {
    expect(isUuid(uuidFromName('image', 'job-1'))).toBe(true);
    expect(uuidFromName('image', 'job-1')).toBe(uuidFromName('image', 'job-1'));
    expect(uuidFromName('image', 'job-1')).not.toBe(uuidFromName('image', 'job-2'));
  });
});
