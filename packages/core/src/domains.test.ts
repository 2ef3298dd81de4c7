import { checkOrigin, hostOf } from './domains';

describe('checkOrigin', () => {
  it.each([
    // domains, origin, verdict
    [[], undefined, 'no-origin'],
    [['example.com'], undefined, 'no-origin'],
    [['example.com'], 'null', 'blocked'],
    [[], 'null', 'any'],
    [[], 'https://anything.io', 'any'],
    [['example.com'], 'https://example.com', 'allowed'],
    [['example.com'], 'https://example.com:8443', 'allowed'],
    [['example.com'], 'https://www.example.com', 'blocked'],
    [['*.example.com'], 'https://example.com', 'allowed'],
    [['*.example.com'], 'https://a.b.example.com', 'allowed'],
    [['*.example.com'], 'https://badexample.com', 'blocked'],
    [['*.example.com'], 'https://example.com.evil.io', 'blocked'],
    [['example.com'], 'http://localhost:5173', 'allowed'],
    [['example.com'], 'http://127.0.0.1:3000', 'allowed'],
    [['example.com'], 'http://[::1]:3000', 'allowed'],
    [['https://Example.com/'], 'https://example.com', 'allowed'],
    [['https://www.acme.example/path'], 'http://www.acme.example:8080', 'allowed'],
    [['www.acme.example'], 'https://acme.example', 'blocked'],
    [['example.com'], 'http://app.localhost:3000', 'allowed'],
    [['example.com'], 'not a url', 'blocked'],
    [['other.org', 'example.com'], 'https://example.com/page?q=1', 'allowed'],
  ] as const)('%j vs %s → %s', (domains, origin, verdict) => {
    expect(checkOrigin(domains, origin)).toBe(verdict);
  });
});

describe('hostOf', () => {
  it.each([
    ['https://App.Example.com:8080/x', 'app.example.com'],
    ['http://[::1]:3000', '::1'],
    ['garbage', null],
    ['', null],
  ])('%s → %s', (value, host) => expect(hostOf(value)).toBe(host));
});
