/**
 * What one HTTP connection may cost: bounded time for a request's headers and body, bounded idle
 * keep-alive, an optional cap on open connections, and no waiting for a body nobody will read.
 * docs/guarantees.md ("Connections a stranger holds") has the measured numbers.
 */
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';

export interface HttpLimits {
  /** From a request's first byte to the end of its headers (HTTP_HEADERS_TIMEOUT_MS); then 408 and close. */
  headersTimeoutMs: number;
  /** From a request's first byte to the end of its body (HTTP_REQUEST_TIMEOUT_MS); then 408 and close. */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this (HTTP_KEEP_ALIVE_TIMEOUT_MS). */
  keepAliveTimeoutMs: number;
  /** Open connections beyond this are closed as they arrive; 0: no cap (HTTP_MAX_CONNECTIONS). */
  maxConnections: number;
}

/** The defaults of the HTTP_* variables (docs/operating/configuration.md). */
export const DEFAULT_HTTP_LIMITS: HttpLimits = {
  headersTimeoutMs: 15_000,
  requestTimeoutMs: 60_000,
  // Above the 60 s idle timeout of common load balancers, so they never reuse a closing connection.
  keepAliveTimeoutMs: 65_000,
  // About 40 MB of held idle connections, 80 MB of authenticated slow uploads (docs/guarantees.md).
  maxConnections: 4000,
};

const hasBody = (req: IncomingMessage) =>
  req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0');

/**
 * Once the answer is on its way while the request's body is still arriving (401, 403, 413, 415
 * and 404 are answered from the headers), the connection says `Connection: close` and Node ends
 * it when the response is sent. Otherwise Node would read the rest of the body to keep the
 * connection alive: a body that trickles would hold it until the request timeout.
 */
export function closeWhenBodyUnread(handler: RequestListener): RequestListener {
  return (req, res) => {
    if (hasBody(req)) {
      const writeHead = res.writeHead;
      // Every response goes through writeHead (res.end() calls it implicitly), so this is the last moment to choose.
      res.writeHead = function (this: ServerResponse, ...args: Parameters<ServerResponse['writeHead']>) {
        if (!req.complete) this.setHeader('Connection', 'close');
        return writeHead.apply(this, args);
      } as ServerResponse['writeHead'];
    }
    handler(req, res);
  };
}

/** An HTTP server holding to `limits`; not yet listening. */
export function createHttpServer(handler: RequestListener, limits: HttpLimits = DEFAULT_HTTP_LIMITS): Server {
  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      // Node checks the two timeouts on this interval (30 s by default): a quarter of the headers timeout, at most 1 s, keeps the bound close.
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(limits.headersTimeoutMs / 4))),
    },
    closeWhenBodyUnread(handler),
  );
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  if (limits.maxConnections > 0) server.maxConnections = limits.maxConnections;
  return server;
}
