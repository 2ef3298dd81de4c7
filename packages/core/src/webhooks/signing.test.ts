import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { newWebhookSecret, signWebhook, WEBHOOK_SECRET_PREFIX } from './signing';

/** The scheme written out with node:crypto, to check the library against. */
const byHand = (secret: string, id: string, timestamp: number, body: string) =>
  'v1,' +
  createHmac('sha256', Buffer.from(secret.slice(WEBHOOK_SECRET_PREFIX.length), 'base64'))
    .update(`${id}.${timestamp}.${body}`)
    .digest('base64');

describe('signWebhook', () => {
  it.each([
    // The Standard Webhooks reference vector.
    [
      'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      'msg_p5jXN8AQM9LWM0D4loKWxJek',
      1614265330,
      '{"test": 2432232314}',
      'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    ],
    ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', '0f8c3b2e-4c1d-4e55-9a8e-2f1f0d7c9b11', 1764000000, '{"jobId":"j","status":"completed"}', null],
    [newWebhookSecret(), 'msg-2', 1764000000, '{"emoji":"é ✓"}', null],
  ])('signs case %#: the id, the timestamp in seconds, the signature per the scheme', (secret, id, timestamp, body, expected) => {
    const headers = signWebhook(secret, id, new Date(timestamp * 1000 + 999), body);
    expect(headers['webhook-id']).toBe(id);
    expect(headers['webhook-timestamp']).toBe(String(timestamp));
    expect(headers['webhook-signature']).toBe(expected ?? byHand(secret, id, timestamp, body));
    expect(headers['webhook-signature']).toBe(byHand(secret, id, timestamp, body));
  });

  it('verifies with the same secret and not with another, nor after the body changes', () => {
    const secret = newWebhookSecret();
    const body = '{"jobId":"abc","status":"completed"}';
    const headers = signWebhook(secret, 'id-1', new Date(), body);
    expect(new Webhook(secret).verify(body, { ...headers })).toEqual({ jobId: 'abc', status: 'completed' });
    expect(() => new Webhook(newWebhookSecret()).verify(body, { ...headers })).toThrow('No matching signature found');
    expect(() => new Webhook(secret).verify(body.replace('abc', 'abd'), { ...headers })).toThrow('No matching signature found');
  });

  it('makes whsec_ secrets of 32 random bytes', () => {
    const [a, b] = [newWebhookSecret(), newWebhookSecret()];
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.slice(6), 'base64')).toHaveLength(32);
    expect(a).not.toBe(b);
  });
});
