import { isStatementRefused } from './sql';

describe('isStatementRefused', () => {
  it.each<[string, unknown, boolean]>([
    ['invalid text for a uuid (22P02)', { code: '22P02' }, true],
    ['a unique violation (23505)', { code: '23505' }, true],
    ['a serialization failure (40001)', { code: '40001' }, true],
    ['connection failure (08006): may have committed', { code: '08006' }, false],
    ['admin shutdown (57P01)', { code: '57P01' }, false],
    ['a socket error', { code: 'ECONNRESET' }, false],
    ['no code (connection terminated unexpectedly)', new Error('Connection terminated unexpectedly'), false],
    ['not an object', 'boom', false],
    ['null', null, false],
  ])('%s', (_name, error, refused) => expect(isStatementRefused(error)).toBe(refused));
});
