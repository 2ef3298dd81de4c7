import { decodeCursor, encodeCursor } from './image-cursor';

const ID = '0b7e3c9a-4f1d-4c2e-9a55-2f7d8e6b1c34';

describe('image list cursor', () => {
  it.each([
    ['an ordinary instant', new Date('2026-11-23T17:13:37.123Z')],
    ['the epoch', new Date(0)],
    ['a far future instant', new Date('2999-12-31T23:59:59.999Z')],
    ['the last storable instant', new Date('9999-12-31T23:59:59.999Z')],
  ])('round-trips %s', (_name, createdAt) => {
    const cursor = encodeCursor({ createdAt, id: ID });
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor)).toEqual({ createdAt, id: ID });
  });

  it.each([
    ['empty', ''],
    ['not base64url', 'a+b/c='],
    ['no separator', Buffer.from('12345').toString('base64url')],
    ['not a uuid', Buffer.from('12345.abc').toString('base64url')],
    ['not a number', Buffer.from(`x.${ID}`).toString('base64url')],
    ['a negative number', Buffer.from(`-5.${ID}`).toString('base64url')],
    ['an instant past year 9999', Buffer.from(`${Date.UTC(10000, 0, 1)}.${ID}`).toString('base64url')],
    ['a 15-digit instant', Buffer.from(`999999999999999.${ID}`).toString('base64url')],
    ['too long', 'A'.repeat(201)],
    ['sql', "' OR 1=1 --"],
  ])('refuses %s', (_name, value) => {
    expect(decodeCursor(value)).toBeNull();
  });
});
