import { hashSecretToken, maySignIn, newSecretToken, sessionVerdict } from './session-rules';

const DAY = 86_400_000;
const now = new Date('2026-11-23T12:00:00Z');
const at = (offsetMs: number) => new Date(now.getTime() + offsetMs);

describe('sessionVerdict', () => {
  it.each([
    ['expired a moment ago', { expiresAt: at(-1), lastSeenAt: at(-DAY) }, 'expired'],
    ['expires exactly now', { expiresAt: at(0), lastSeenAt: at(-1000) }, 'expired'],
    ['fresh, seen a second ago', { expiresAt: at(14 * DAY - 1000), lastSeenAt: at(-1000) }, 'ok'],
    ['seen over a minute ago', { expiresAt: at(13 * DAY), lastSeenAt: at(-61_000) }, 'touch'],
    ['under half its life left', { expiresAt: at(6 * DAY), lastSeenAt: at(-1000) }, 'touch'],
  ] as const)('%s → %s', (_name, session, verdict) => {
    expect(sessionVerdict(session, now, 14 * DAY, 60_000)).toBe(verdict);
  });
});

describe('maySignIn', () => {
  it.each([
    ['approved', true],
    ['pending', true],
    ['suspended', false],
    ['banned', false],
  ] as const)('%s → %s', (status, may) => expect(maySignIn(status)).toBe(may));
});

describe('secret tokens', () => {
  it('are long, random and stored by a stable hash', () => {
    const a = newSecretToken();
    const b = newSecretToken();
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(a).not.toBe(b);
    expect(hashSecretToken(a)).toBe(hashSecretToken(a));
    expect(hashSecretToken(a)).not.toBe(hashSecretToken(b));
    expect(hashSecretToken(a)).not.toContain(a);
  });
});
