import { approvalEmail, signInEmail, signInLinkState, signInUrl } from './sign-in-links';

const now = new Date('2026-11-23T12:00:00Z');
const at = (offsetMs: number) => new Date(now.getTime() + offsetMs);

describe('signInLinkState', () => {
  it.each([
    ['unused, expires in a minute', { expiresAt: at(60_000), usedAt: null }, 'ok'],
    ['unused, expires in a millisecond', { expiresAt: at(1), usedAt: null }, 'ok'],
    ['unused, expires exactly now', { expiresAt: at(0), usedAt: null }, 'expired'],
    ['unused, expired an hour ago', { expiresAt: at(-3_600_000), usedAt: null }, 'expired'],
    ['used, not yet expired', { expiresAt: at(60_000), usedAt: at(-1000) }, 'used'],
    ['used and since expired', { expiresAt: at(-1000), usedAt: at(-5000) }, 'used'],
  ] as const)('%s → %s', (_name, link, state) => {
    expect(signInLinkState(link, now)).toBe(state);
  });
});

describe('signInUrl', () => {
  it.each([
    ['https://pix.example.com', 'abc-_123', 'https://pix.example.com/dashboard/sign-in#token=abc-_123'],
    ['https://pix.example.com/', 'abc', 'https://pix.example.com/dashboard/sign-in#token=abc'],
    ['http://127.0.0.1:3000', 'a+b/c=', 'http://127.0.0.1:3000/dashboard/sign-in#token=a%2Bb%2Fc%3D'],
  ])('%s + %s → %s', (base, token, url) => {
    expect(signInUrl(base, token)).toBe(url);
  });

  it('keeps the token out of the path and query (only the fragment, which browsers never send)', () => {
    const url = new URL(signInUrl('https://pix.example.com', 'secret'));
    expect(url.pathname + url.search).not.toContain('secret');
    expect(url.hash).toBe('#token=secret');
  });
});

describe('e-mails', () => {
  const url = 'https://pix.example.com/dashboard/sign-in#token=tok';

  it('the approval e-mail announces the approval, carries the link and says what the dashboard holds and how long the link lives', () => {
    const mail = approvalEmail({ to: 'ada@example.com', handle: 'ada', url, expiresInMinutes: 7 * 1440 });
    expect(mail.to).toBe('ada@example.com');
    expect(mail.subject).toBe('Your PromptPix account is approved');
    expect(mail.text).toContain('Your PromptPix account is approved');
    expect(mail.text).toContain(url);
    expect(mail.text).toMatch(/API keys/);
    expect(mail.text).toContain('expires in 7 days');
    expect(mail.html).toContain(`href="${url}"`);
  });

  it.each([
    [15, 'expires in 15 minutes'],
    [1, 'expires in 1 minute'],
    [60, 'expires in 1 hour'],
    [120, 'expires in 2 hours'],
    [1440, 'expires in 1 day'],
  ])('the sign-in e-mail for a %i-minute link says "%s", single use, ignore if not asked', (minutes, says) => {
    const mail = signInEmail({ to: 'ada@example.com', handle: 'ada', url, expiresInMinutes: minutes });
    expect(mail.subject).toBe('Your PromptPix sign-in link');
    expect(mail.text).toContain(url);
    expect(mail.text).toContain(says);
    expect(mail.text).toContain('can be used once');
    expect(mail.text).toMatch(/didn't ask.*ignore/);
  });

  it('escapes what goes into the HTML part', () => {
    const mail = signInEmail({ to: 'x@example.com', handle: '<b>x</b>', url: 'https://a.example/?a=1&b=2', expiresInMinutes: 15 });
    expect(mail.html).toContain('&lt;b&gt;x&lt;/b&gt;');
    expect(mail.html).toContain('href="https://a.example/?a=1&amp;b=2"');
  });
});
