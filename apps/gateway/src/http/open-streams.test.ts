import { AppError } from '@promptpix/core';
import { createOpenStreams } from './open-streams';

describe('open job event streams', () => {
  const setup = () => {
    const streams = createOpenStreams({ perKey: 2, perAccount: 3 });
    const stopped: string[] = [];
    const open = (name: string, keyId: string | null, accountId: string) => {
      const handle = streams.open(keyId, accountId, () => {
        stopped.push(name);
        handle.release();
      });
      return handle;
    };
    return { streams, stopped, open };
  };
  const refusal = (fn: () => unknown) => {
    try {
      fn();
    } catch (error) {
      return error instanceof AppError ? `${error.kind}: ${error.message}` : 'other';
    }
    return 'opened';
  };

  it.each([
    [
      'a third stream on one key',
      [
        ['k1', 'a'],
        ['k1', 'a'],
      ],
      ['k1', 'a'],
      'rate_limited: Too many open job event streams for this key',
    ],
    [
      'a fourth stream on one account, over several keys',
      [
        ['k1', 'a'],
        ['k2', 'a'],
        ['k3', 'a'],
      ],
      ['k4', 'a'],
      'rate_limited: Too many open job event streams for this account',
    ],
    [
      'another account is not counted',
      [
        ['k1', 'a'],
        ['k1', 'a'],
      ],
      ['k9', 'b'],
      'opened',
    ],
    [
      'dashboard sessions (no key) count against their account',
      [
        [null, 'a'],
        [null, 'a'],
        ['k1', 'a'],
      ],
      [null, 'a'],
      'rate_limited: Too many open job event streams for this account',
    ],
    [
      'dashboard sessions are not held to a key cap',
      [
        [null, 'a'],
        [null, 'a'],
      ],
      [null, 'a'],
      'opened',
    ],
  ] as const)('%s', (_name, before, next, outcome) => {
    const { open } = setup();
    before.forEach(([key, account], i) => {
      open(`s${i}`, key, account);
    });
    expect(refusal(() => open('next', next[0], next[1]))).toBe(outcome);
  });

  it('a released stream frees its place', () => {
    const { open, streams } = setup();
    const first = open('one', 'k1', 'a');
    open('two', 'k1', 'a');
    first.release();
    expect(streams.count('k1')).toBe(1);
    expect(refusal(() => open('three', 'k1', 'a'))).toBe('opened');
  });

  it('a revoked key ends its own streams; an account change ends every stream of the account', () => {
    const { open, streams, stopped } = setup();
    open('a-k1', 'k1', 'a');
    open('a-k2', 'k2', 'a');
    open('b-k3', 'k3', 'b');
    streams.invalidate({ kind: 'key', keyId: 'k1' });
    expect(stopped).toEqual(['a-k1']);
    streams.invalidate({ kind: 'account', accountId: 'a' });
    expect(stopped).toEqual(['a-k1', 'a-k2']);
    streams.invalidate({ kind: 'images', accountId: 'b' });
    expect(stopped).toEqual(['a-k1', 'a-k2']);
    expect(streams.count('k3')).toBe(1);
  });
});
