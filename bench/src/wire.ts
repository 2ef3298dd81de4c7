/**
 * Counting proxies for PostgreSQL and Redis. A gateway pointed at them (a second instance, used
 * only for counting, never for timing) shows exactly what one request costs in round trips:
 * PostgreSQL protocol messages (a Sync or a simple Query ends a round trip; Prisma sends each
 * statement as Parse/Bind/Describe/Execute/Sync) with the SQL text of each statement, and Redis
 * commands by name (MULTI/EXEC and pipelines count every command inside).
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';

export interface PgCounts {
  roundTrips: number;
  statements: number;
  bySql: Record<string, number>;
}

export interface RedisCounts {
  commands: number;
  /** Writes by the client (a pipeline or MULTI block usually goes out in one): ≈ round trips. */
  writes: number;
  byCommand: Record<string, number>;
}

export interface Counter<T> {
  port: number;
  reset(): void;
  read(): T;
  close(): Promise<void>;
}

function proxy(upstreamPort: number, onClientData: (socket: Socket, chunk: Buffer) => void): Promise<{ server: Server; port: number; sockets: Set<Socket> }> {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = createConnection({ host: '127.0.0.1', port: upstreamPort });
    sockets.add(client);
    sockets.add(upstream);
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    client.on('data', (chunk) => {
      onClientData(client, chunk);
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => client.write(chunk));
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', end);
    upstream.on('close', end);
    client.on('error', end);
    upstream.on('error', end);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve({ server, port: typeof address === 'object' && address ? address.port : 0, sockets });
    });
  });
}

const closeProxy = (server: Server, sockets: Set<Socket>) =>
  new Promise<void>((resolve) => {
    for (const s of sockets) s.destroy();
    server.close(() => resolve());
  });

/** Statement text as a short, stable label (whitespace collapsed, parameters left as $n). */
const label = (sql: string) => sql.replace(/\s+/g, ' ').trim().slice(0, 160);

export async function startPgCounter(upstreamPort = 5432): Promise<Counter<PgCounts>> {
  let counts: PgCounts = { roundTrips: 0, statements: 0, bySql: {} };
  const state = new WeakMap<Socket, { started: boolean; buf: Buffer }>();
  const { server, port, sockets } = await proxy(upstreamPort, (socket, chunk) => {
    let s = state.get(socket);
    if (!s) {
      s = { started: false, buf: Buffer.alloc(0) };
      state.set(socket, s);
    }
    s.buf = s.buf.length ? Buffer.concat([s.buf, chunk]) : chunk;
    for (;;) {
      if (!s.started) {
        // Untyped start-up messages: SSL/GSS requests, then the StartupMessage.
        if (s.buf.length < 8) return;
        const len = s.buf.readInt32BE(0);
        if (s.buf.length < len) return;
        const code = s.buf.readInt32BE(4);
        if (code === 196608) s.started = true;
        s.buf = s.buf.subarray(len);
        continue;
      }
      if (s.buf.length < 5) return;
      const type = String.fromCharCode(s.buf[0]);
      const len = s.buf.readInt32BE(1);
      if (s.buf.length < len + 1) return;
      const body = s.buf.subarray(5, len + 1);
      if (type === 'Q') {
        counts.roundTrips++;
        counts.statements++;
        const sql = label(body.subarray(0, body.indexOf(0)).toString('utf8'));
        counts.bySql[sql] = (counts.bySql[sql] ?? 0) + 1;
      } else if (type === 'P') {
        const nameEnd = body.indexOf(0);
        const sql = label(body.subarray(nameEnd + 1, body.indexOf(0, nameEnd + 1)).toString('utf8'));
        counts.bySql[sql] = (counts.bySql[sql] ?? 0) + 1;
      } else if (type === 'E') counts.statements++;
      else if (type === 'S') counts.roundTrips++;
      s.buf = s.buf.subarray(len + 1);
    }
  });
  return {
    port,
    reset: () => (counts = { roundTrips: 0, statements: 0, bySql: {} }),
    read: () => counts,
    close: () => closeProxy(server, sockets),
  };
}

export async function startRedisCounter(upstreamPort = 6379): Promise<Counter<RedisCounts>> {
  let counts: RedisCounts = { commands: 0, writes: 0, byCommand: {} };
  const buffers = new WeakMap<Socket, Buffer>();
  const { server, port, sockets } = await proxy(upstreamPort, (socket, chunk) => {
    counts.writes++;
    let buf = buffers.get(socket);
    buf = buf?.length ? Buffer.concat([buf, chunk]) : chunk;
    let pos = 0;
    const line = (from: number) => {
      const end = buf!.indexOf('\r\n', from);
      return end < 0 ? null : { text: buf!.subarray(from, end).toString('latin1'), next: end + 2 };
    };
    outer: while (pos < buf.length) {
      if (buf[pos] !== 0x2a /* '*' */) {
        const inline = line(pos);
        if (!inline) break;
        const name = inline.text.split(' ')[0].toUpperCase();
        if (name) {
          counts.commands++;
          counts.byCommand[name] = (counts.byCommand[name] ?? 0) + 1;
        }
        pos = inline.next;
        continue;
      }
      const header = line(pos);
      if (!header) break;
      const n = Number(header.text.slice(1));
      let at = header.next;
      let name = '';
      for (let i = 0; i < n; i++) {
        const bulk = line(at);
        if (!bulk) break outer;
        const size = Number(bulk.text.slice(1));
        if (buf.length < bulk.next + size + 2) break outer;
        if (i === 0)
          name = buf
            .subarray(bulk.next, bulk.next + size)
            .toString('latin1')
            .toUpperCase();
        at = bulk.next + size + 2;
      }
      counts.commands++;
      counts.byCommand[name] = (counts.byCommand[name] ?? 0) + 1;
      pos = at;
    }
    buffers.set(socket, buf.subarray(pos));
  });
  return {
    port,
    reset: () => (counts = { commands: 0, writes: 0, byCommand: {} }),
    read: () => counts,
    close: () => closeProxy(server, sockets),
  };
}
