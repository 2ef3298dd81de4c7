import { Writable } from 'node:stream';
import winston from 'winston';
import { createLogger, redact, runWithRequestId } from './logger';

const capture = () => {
  const lines: string[] = [];
  const stream = new Writable({
    write: (chunk, _e, done) => {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, transport: new winston.transports.Stream({ stream }) };
};

describe('logger', () => {
  const key = `sk_live_${'A1b2'.repeat(10)}`;

  it.each([
    [`calling with ${key}`, 'calling with sk_live_[redacted]'],
    ['Authorization: Bearer abc.def-123', 'Authorization: Bearer [redacted]'],
    ['/api/v1/render?prompt=x&key=pk_live_zzzz&style=y', '/api/v1/render?prompt=x&key=[redacted]&style=y'],
    ['nothing secret here', 'nothing secret here'],
  ])('redacts %s', (input, output) => expect(redact(input)).toBe(output));

  it('redacts secret-named fields at any depth', () => {
    expect(redact({ headers: { authorization: 'Bearer x', accept: 'json' }, config: { S3_SECRET_ACCESS_KEY: 'abc' } })).toEqual({
      headers: { authorization: '[redacted]', accept: 'json' },
      config: { S3_SECRET_ACCESS_KEY: '[redacted]' },
    });
  });

  it('writes JSON lines with the request id and without secrets', () => {
    const { lines, transport } = capture();
    const logger = createLogger({ level: 'info', format: 'json', service: 'test', transports: [transport] });
    runWithRequestId('req-12345678', () => logger.info(`key ${key} used`, { apiKey: key, error: new Error(`bad ${key}`) }));
    const line = JSON.parse(lines[0]);
    expect(line).toMatchObject({ level: 'info', service: 'test', requestId: 'req-12345678', apiKey: '[redacted]' });
    expect(lines[0]).not.toContain(key.slice(8));
  });

  it('writes readable lines in development', () => {
    const { lines, transport } = capture();
    const logger = createLogger({ level: 'info', format: 'pretty', service: 'test', transports: [transport] });
    runWithRequestId('req-abcdefgh', () => logger.info('hello'));
    expect(lines[0]).toMatch(/info.*\[test\] \(req-abcdefgh\) hello/);
    expect(() => JSON.parse(lines[0])).toThrow();
  });
});
