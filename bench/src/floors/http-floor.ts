/**
 * Floor 2: bare node:http. Per request: one Redis GET (the body, stored under
 * `${FLOOR_PREFIX}floor:<size>`), then that body as JSON. The least a hot endpoint that reads one
 * value from Redis can cost in Node.
 */
import { createServer } from 'node:http';
import Redis from 'ioredis';
import { FLOOR_SIZE_HEADER, jsonBodyOfSize, sizeOf } from './body';

const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { enableOfflineQueue: true });
const prefix = process.env.FLOOR_PREFIX ?? 'floor:';

const server = createServer((req, res) => {
  req.resume();
  const size = sizeOf(req.headers[FLOOR_SIZE_HEADER]);
  const key = `${prefix}floor:${size}`;
  redis.get(key).then(
    async (stored) => {
      let body = stored;
      if (body === null) {
        body = jsonBodyOfSize(size);
        await redis.set(key, body, 'EX', 3600);
      }
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    },
    () => {
      res.writeHead(503).end();
    },
  );
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => {
  server.close(() => {
    redis.disconnect();
    process.exit(0);
  });
  server.closeIdleConnections();
});
