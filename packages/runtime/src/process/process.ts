import type { RequestListener, Server } from 'node:http';
import { ConfigError } from '../config/config';
import { createHttpServer, DEFAULT_HTTP_LIMITS, type HttpLimits } from './http-server';
import type { Logger } from '../observability/logger';

export interface RunningServer {
  server: Server;
  port: number;
  /** Stops accepting, lets in-flight requests finish (bounded), then closes idle sockets. */
  stop(timeoutMs?: number): Promise<void>;
}

export function listen(handler: RequestListener, port: number, host?: string, limits: HttpLimits = DEFAULT_HTTP_LIMITS): Promise<RunningServer> {
  const server = createHttpServer(handler, limits);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const address = server.address();
      resolve({
        server,
        port: typeof address === 'object' && address ? address.port : port,
        stop: (timeoutMs = 10_000) =>
          new Promise<void>((done) => {
            const force = setTimeout(() => server.closeAllConnections(), timeoutMs).unref();
            server.close(() => {
              clearTimeout(force);
              done();
            });
            server.closeIdleConnections();
          }),
      });
    });
  });
}

/**
 * Runs a process's start function; exits with a readable message when configuration is wrong;
 * stops gracefully on SIGTERM/SIGINT.
 */
export function runProcess(name: string, start: () => Promise<{ logger: Logger; stop(): Promise<void> }>): void {
  start().then(
    ({ logger, stop }) => {
      let stopping = false;
      const shutdown = (signal: string) => {
        if (stopping) return;
        stopping = true;
        logger.info(`${signal} received, shutting down`);
        stop().then(
          () => process.exit(0),
          (error) => {
            logger.error('shutdown failed', { error });
            process.exit(1);
          },
        );
      };
      process.on('SIGTERM', () => shutdown('SIGTERM'));
      process.on('SIGINT', () => shutdown('SIGINT'));
    },
    (error) => {
      if (error instanceof ConfigError) process.stderr.write(`${name}: ${error.message}\n`);
      else process.stderr.write(`${name}: failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(1);
    },
  );
}
