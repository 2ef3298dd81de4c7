import { trustProxySetting } from './trust-proxy';

describe('trustProxySetting', () => {
  it.each([
    ['true', true],
    ['false', false],
    ['1', 1],
    [' 2 ', 2],
    ['loopback', ['loopback']],
    ['loopback, 10.0.0.0/8,172.16.0.0/12', ['loopback', '10.0.0.0/8', '172.16.0.0/12']],
  ])('%j → %j', (value, expected) => expect(trustProxySetting(value)).toEqual(expected));
});
