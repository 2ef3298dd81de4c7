import { integerHeader, quotaFromHeaders, rateLimitFromHeaders, retryAfterSeconds } from './headers';

const headers = (values: Record<string, string>) => new Headers(values);

describe('integerHeader', () => {
  it.each([
    [{ 'X-N': '30' }, 30],
    [{ 'x-n': ' 7 ' }, 7],
    [{ 'X-N': '0' }, 0],
    [{ 'X-N': '-1' }, null],
    [{ 'X-N': '1.5' }, null],
    [{ 'X-N': 'many' }, null],
    [{ 'X-N': '' }, null],
    [{}, null],
  ])('%j → %p', (values, expected) => expect(integerHeader(headers(values), 'X-N')).toBe(expected));
});

describe('quotaFromHeaders', () => {
  const reset = '2026-12-23T12:00:00.000Z';
  it.each([
    [
      { 'X-Quota-Used': '3', 'X-Quota-Limit': '100', 'X-Quota-Reset': reset },
      { used: 3, limit: 100, resetAt: reset },
    ],
    [
      { 'x-quota-used': '0', 'x-quota-limit': '0', 'x-quota-reset': reset },
      { used: 0, limit: 0, resetAt: reset },
    ],
    [{ 'X-Quota-Limit': '100', 'X-Quota-Reset': reset }, null],
    [{ 'X-Quota-Used': '3', 'X-Quota-Reset': reset }, null],
    [{ 'X-Quota-Used': '3', 'X-Quota-Limit': '100' }, null],
    [{ 'X-Quota-Used': '3', 'X-Quota-Limit': '100', 'X-Quota-Reset': 'soon' }, null],
    [{}, null],
  ])('%j → %j', (values, expected) => expect(quotaFromHeaders(headers(values))).toEqual(expected));
});

describe('rateLimitFromHeaders', () => {
  it.each([
    [
      { 'X-RateLimit-Limit': '30', 'X-RateLimit-Remaining': '0' },
      { limit: 30, remaining: 0 },
    ],
    [{ 'X-RateLimit-Limit': '30' }, { limit: 30, remaining: null }],
    [{}, { limit: null, remaining: null }],
  ])('%j → %j', (values, expected) => expect(rateLimitFromHeaders(headers(values))).toEqual(expected));
});

describe('retryAfterSeconds', () => {
  const now = Date.parse('2026-11-23T12:00:00Z');
  it.each([
    [{ 'Retry-After': '5' }, 5],
    [{ 'Retry-After': '0' }, 0],
    [{ 'Retry-After': 'Mon, 23 Nov 2026 12:00:30 GMT' }, 30],
    [{ 'Retry-After': 'Mon, 23 Nov 2026 11:59:00 GMT' }, 0],
    [{ 'Retry-After': 'later' }, undefined],
    [{ 'Retry-After': '-3' }, undefined],
    [{}, undefined],
  ])('%j → %p', (values, expected) => expect(retryAfterSeconds(headers(values), now)).toBe(expected));
});
