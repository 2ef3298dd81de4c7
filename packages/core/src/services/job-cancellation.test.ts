import { isCancelled, parseCancelAfter } from './job-cancellation';

describe('parseCancelAfter', () => {
  const now = new Date('2026-11-23T12:00:00.000Z');
  it.each([
    [undefined, { cancelAt: null }],
    ['1', { cancelAt: '2026-11-23T12:00:01.000Z' }],
    [' 90 ', { cancelAt: '2026-11-23T12:01:30.000Z' }],
    ['3600', { cancelAt: '2026-11-23T13:00:00.000Z' }],
    ['0', { error: 'Must be a whole number of seconds from 1 to 3600' }],
    ['3601', { error: 'Must be a whole number of seconds from 1 to 3600' }],
    ['1.5', { error: 'Must be a whole number of seconds from 1 to 3600' }],
    ['-5', { error: 'Must be a whole number of seconds from 1 to 3600' }],
    ['', { error: 'Must be a whole number of seconds from 1 to 3600' }],
    ['Tue, 24 Nov 2026 12:00:00 GMT', { error: 'Must be a whole number of seconds from 1 to 3600' }],
  ])('%j → %j', (header, expected) => expect(parseCancelAfter(header, now)).toEqual(expected));
});

describe('isCancelled', () => {
  it.each([
    [{ status: 'failed' as const, error: 'cancelled' }, true],
    [{ status: 'failed' as const, error: 'Image generation failed: timeout' }, false],
    [{ status: 'processing' as const }, false],
  ])('%j → %s', (job, expected) => expect(isCancelled(job)).toBe(expected));
});
