/**
 * Structured logging with winston. Every line written inside a request carries its request id
 * (AsyncLocalStorage). Anything shaped like an API key or a bearer token is scrubbed before output.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import winston from 'winston';

export type Logger = winston.Logger;

const requestContext = new AsyncLocalStorage<{ requestId: string }>();

export const runWithRequestId = <T>(requestId: string, fn: () => T): T => requestContext.run({ requestId }, fn);
export const currentRequestId = (): string | undefined => requestContext.getStore()?.requestId;

const SECRET_PATTERNS: Array<[RegExp, string]> = [
  [/\b(sk|pk)_live_[0-9A-Za-z]+/g, '$1_live_[redacted]'],
  [/(Bearer\s+)[^\s"',]+/gi, '$1[redacted]'],
  // `#token=` too: a dashboard sign-in link carries its token in the fragment.
  [/([?&#](key|token|admin_token)=)[^&\s"']+/gi, '$1[redacted]'],
];
const SECRET_FIELDS = /^(authorization|key|apikey|api_key|token|admintoken|admin_token|password|secret|secretaccesskey|s3_secret_access_key)$/i;

export function redact(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return SECRET_PATTERNS.reduce((s, [re, rep]) => s.replace(re, rep), value);
  if (depth > 6 || value === null || typeof value !== 'object') return value;
  if (value instanceof Error) return { name: value.name, message: redact(value.message), stack: redact(value.stack) };
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = SECRET_FIELDS.test(k) ? '[redacted]' : redact(v, depth + 1);
  return out;
}

const scrub = winston.format((info) => {
  const requestId = currentRequestId();
  if (requestId && info.requestId === undefined) info.requestId = requestId;
  for (const key of Object.keys(info)) {
    info[key] = SECRET_FIELDS.test(key) ? '[redacted]' : redact(info[key]);
  }
  return info;
});

export interface LoggerOptions {
  level: string;
  format: 'json' | 'pretty';
  service: string;
  /** Extra transport, e.g. a capture stream in tests. */
  transports?: winston.transport[];
}

export function createLogger(options: LoggerOptions): Logger {
  const pretty = winston.format.combine(
    winston.format.colorize(),
    winston.format.printf(({ timestamp, level, message, service, requestId, ...rest }) => {
      const extra = Object.keys(rest).length ? ` ${JSON.stringify(rest)}` : '';
      return `${timestamp} ${level} [${service}]${requestId ? ` (${requestId})` : ''} ${message}${extra}`;
    }),
  );
  return winston.createLogger({
    level: options.level,
    defaultMeta: { service: options.service },
    format: winston.format.combine(scrub(), winston.format.timestamp(), options.format === 'json' ? winston.format.json() : pretty),
    transports: options.transports ?? [new winston.transports.Console()],
  });
}
