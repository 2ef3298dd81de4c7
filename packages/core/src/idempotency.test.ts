import { canonicalJson, parseIdempotencyKey } from './idempotency';

describe('parseIdempotencyKey', () => {
  it.each([
    [undefined, { key: null }],
    ['0f8c3b2e-4c1d-4e55-9a8e-2f1f0d7c9b11', { key: '0f8c3b2e-4c1d-4e55-9a8e-2f1f0d7c9b11' }],
    ['order-42/retry', { key: 'order-42/retry' }],
    ['x'.repeat(255), { key: 'x'.repeat(255) }],
    ['', { error: 'Must be 1 to 255 visible ASCII characters' }],
    ['x'.repeat(256), { error: 'Must be 1 to 255 visible ASCII characters' }],
    ['has space', { error: 'Must be 1 to 255 visible ASCII characters' }],
    ['ключ', { error: 'Must be 1 to 255 visible ASCII characters' }],
  ])('%j → %j', (header, expected) => expect(parseIdempotencyKey(header)).toEqual(expected));
});

describe('canonicalJson', () => {
  it.each([
    [{ b: 2, a: 1 }, '{"a":1,"b":2}'],
    [{ a: { d: [3, { f: 1, e: 2 }], c: null } }, '{"a":{"c":null,"d":[3,{"e":2,"f":1}]}}'],
    [{ a: undefined, b: 'x' }, '{"b":"x"}'],
    [['b', 'a'], '["b","a"]'],
    ['text "quoted"', '"text \\"quoted\\""'],
  ])('%j → %s', (value, expected) => expect(canonicalJson(value)).toBe(expected));

  it('is the same for the same request written in another order', () => {
    expect(canonicalJson({ prompt: 'x', width: 512, height: 512 })).toBe(canonicalJson({ height: 512, prompt: 'x', width: 512 }));
  });
});
