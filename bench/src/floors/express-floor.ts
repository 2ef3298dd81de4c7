/**
 * Floor 1: an Express 5 hello-world with the gateway's app settings (no x-powered-by, no ETag)
 * and its JSON body parser, answering every path with a JSON body of the size asked for in
 * `x-floor-size` (the size of the scenario's response). Nothing else: what Express itself costs.
 */
import express from 'express';
import { FLOOR_SIZE_HEADER, jsonBodyOfSize, sizeOf } from './body';

const bodies = new Map<number, unknown>();
const bodyFor = (size: number) => {
  let body = bodies.get(size);
  if (body === undefined) {
    body = JSON.parse(jsonBodyOfSize(size));
    bodies.set(size, body);
  }
  return body;
};

const app = express();
app.disable('x-powered-by');
app.set('etag', false);
app.use(express.json({ limit: '1mb' }));
app.all('/{*splat}', (req, res) => {
  res.json(bodyFor(sizeOf(req.headers[FLOOR_SIZE_HEADER])));
});

const server = app.listen(Number(process.env.PORT), '127.0.0.1');
server.keepAliveTimeout = 65_000;
process.on('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeIdleConnections();
});
