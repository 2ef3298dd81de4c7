/**
 * A fault-injecting TCP proxy for tests: a service connects to the proxy instead of its dependency
 * (PostgreSQL, Redis, the S3-protocol server, a model backend), and the test decides what the
 * wire does. Built on node:net because the well-kept option, toxiproxy, needs its Go server.
 *
 * Modes (`proxy.set(...)`), read on every chunk so a change applies to open connections too:
 * - `pass`: bytes flow unchanged.
 * - `cut`: every open connection is reset (RST), and new ones are accepted and reset at once.
 * - `slow`: bytes go on in chunks of `chunkBytes`, one every `intervalMs` (a trickle), both ways.
 * - `truncate`: the answer direction (dependency → client) ends after `afterBytes` bytes of each
 *   connection; then the connection is closed (FIN, as a server that gave up writing would).
 * - `corrupt`: in the answer direction, one byte in every `everyBytes` after the first `afterBytes`
 *   bytes of each connection is flipped (XOR 0xff).
 * - `mute`: requests reach the dependency, its answers are dropped: with a `cut` after it, a reply
 *   lost on the wire after the dependency acted on the request.
 */
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';

export type FaultMode =
  | { kind: 'pass' }
  | { kind: 'cut' }
  | { kind: 'slow'; chunkBytes: number; intervalMs: number }
  | { kind: 'truncate'; afterBytes: number }
  | { kind: 'corrupt'; afterBytes: number; everyBytes: number }
  | { kind: 'mute' };

export interface FaultProxy {
  host: string;
  port: number;
  /** `host:port` of the proxy. */
  address: string;
  mode(): FaultMode;
  set(mode: FaultMode): void;
  /** `set({ kind: 'cut' })`. */
  cut(): void;
  /** `set({ kind: 'pass' })`. */
  pass(): void;
  /** Connections accepted (refused ones included), the connections open now, bytes relayed (both ways). */
  stats(): { accepted: number; refused: number; open: number; bytes: number };
  stop(): Promise<void>;
}

/** What to do with one chunk of the answer direction, given the bytes already sent on this connection. */
export function shapeAnswerChunk(mode: FaultMode, chunk: Buffer, sentBefore: number): { data: Buffer; end: boolean } {
  if (mode.kind === 'mute') return { data: chunk.subarray(0, 0), end: false };
  if (mode.kind === 'truncate') {
    const room = Math.max(0, mode.afterBytes - sentBefore);
    return room >= chunk.length ? { data: chunk, end: room === chunk.length } : { data: chunk.subarray(0, room), end: true };
  }
  if (mode.kind === 'corrupt') {
    const data = Buffer.from(chunk);
    for (let i = 0; i < data.length; i++) {
      const offset = sentBefore + i - mode.afterBytes;
      if (offset >= 0 && offset % mode.everyBytes === 0) data[i] ^= 0xff;
    }
    return { data, end: false };
  }
  return { data: chunk, end: false };
}

export async function startFaultProxy(target: { host?: string; port: number }, initial: FaultMode = { kind: 'pass' }): Promise<FaultProxy> {
  const targetHost = target.host ?? '127.0.0.1';
  let mode: FaultMode = initial;
  const open = new Set<Socket>();
  let accepted = 0;
  let refused = 0;
  let bytes = 0;

  const resetAll = () => {
    for (const socket of open) socket.resetAndDestroy();
    open.clear();
  };

  const server: Server = createServer((client) => {
    accepted++;
    client.on('error', () => undefined);
    if (mode.kind === 'cut') {
      refused++;
      client.resetAndDestroy();
      return;
    }
    const upstream = connect({ host: targetHost, port: target.port });
    upstream.on('error', () => undefined);
    open.add(client);
    open.add(upstream);
    // A side that closes cleanly has sent its FIN, which the relay passes on once its bytes are
    // out; a side that fails takes the other down with it.
    const onClose = (closed: Socket, other: Socket) => (hadError: boolean) => {
      open.delete(closed);
      if (hadError && !other.destroyed) other.resetAndDestroy();
    };
    client.once('close', onClose(client, upstream));
    upstream.once('close', onClose(upstream, client));
    relay(client, upstream, false);
    relay(upstream, client, true);
  });

  /** Moves bytes `from` → `to`, shaping them by the current mode; `answer` is dependency → client. */
  function relay(from: Socket, to: Socket, answer: boolean) {
    let sent = 0;
    let ended = false;
    let queue: Buffer[] = [];
    let dribbling = false;

    const write = (data: Buffer) => {
      if (data.length === 0 || to.destroyed) return;
      sent += data.length;
      bytes += data.length;
      if (!to.write(data)) {
        from.pause();
        to.once('drain', () => !dribbling && from.resume());
      }
    };

    const dribble = () => {
      if (to.destroyed) return;
      const current = mode;
      if (current.kind !== 'slow') {
        // The trickle ended: flush what is left at full speed.
        const rest = Buffer.concat(queue);
        queue = [];
        dribbling = false;
        forward(rest);
        if (pendingEnd && !ended) to.end();
        else from.resume();
        return;
      }
      const head = Buffer.concat(queue);
      const piece = head.subarray(0, current.chunkBytes);
      queue = head.length > piece.length ? [head.subarray(piece.length)] : [];
      write(piece);
      if (queue.length > 0) {
        setTimeout(dribble, current.intervalMs);
        return;
      }
      dribbling = false;
      if (pendingEnd) to.end();
      else from.resume();
    };

    let pendingEnd = false;
    const forward = (chunk: Buffer) => {
      if (ended) return;
      const current = mode;
      if (current.kind === 'cut') return; // the sockets are being reset
      if (current.kind === 'slow') {
        queue.push(chunk);
        if (!dribbling) {
          dribbling = true;
          from.pause();
          setTimeout(dribble, current.intervalMs);
        }
        return;
      }
      if (!answer) return write(chunk);
      const shaped = shapeAnswerChunk(current, chunk, sent);
      write(shaped.data);
      if (shaped.end) {
        ended = true;
        to.end();
        from.destroy();
      }
    };

    from.on('data', (chunk: Buffer) => (dribbling ? queue.push(chunk) : forward(chunk)));
    from.once('end', () => {
      if (dribbling) pendingEnd = true;
      else if (!ended) to.end();
    });
  }

  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;

  const set = (next: FaultMode) => {
    mode = next;
    if (next.kind === 'cut') resetAll();
  };
  return {
    host: '127.0.0.1',
    port,
    address: `127.0.0.1:${port}`,
    mode: () => mode,
    set,
    cut: () => set({ kind: 'cut' }),
    pass: () => set({ kind: 'pass' }),
    stats: () => ({ accepted, refused, open: Math.ceil(open.size / 2), bytes }),
    async stop() {
      resetAll();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
