/**
 * The fault proxy on real sockets: a loopback server that answers a fixed body to whatever a
 * client sends, reached through the proxy in each mode.
 */
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';
import { startFaultProxy, type FaultProxy } from './fault-proxy';

const BODY = Buffer.from(Array.from({ length: 4096 }, (_, i) => i % 251));

/** Sends `request`, collects everything the server side sends until the connection ends. */
function exchange(proxy: FaultProxy, request = 'hello'): Promise<{ data: Buffer; chunks: number; error?: string }> {
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    const socket = connect({ host: proxy.host, port: proxy.port }, () => socket.write(request));
    socket.on('data', (d: Buffer) => parts.push(d));
    socket.on('error', (error: NodeJS.ErrnoException) => resolve({ data: Buffer.concat(parts), chunks: parts.length, error: error.code ?? error.message }));
    socket.on('end', () => resolve({ data: Buffer.concat(parts), chunks: parts.length }));
  });
}

describe('fault proxy', () => {
  let server: Server;
  let proxy: FaultProxy;
  const received: string[] = [];
  const held: Socket[] = [];

  beforeAll(async () => {
    server = createServer((socket) => {
      socket.on('error', () => undefined);
      socket.once('data', (d) => {
        received.push(String(d));
        if (String(d) === 'hold')
          held.push(socket); // keeps the connection open, answers nothing
        else socket.end(BODY);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    proxy = await startFaultProxy({ port: (server.address() as AddressInfo).port });
  });
  afterEach(() => proxy.pass());
  afterAll(async () => {
    await proxy.stop();
    for (const s of held) s.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('passes bytes both ways unchanged', async () => {
    const result = await exchange(proxy, 'pass me');
    expect(result.error).toBeUndefined();
    expect(result.data.equals(BODY)).toBe(true);
    expect(received).toContain('pass me');
  });

  it('cut resets open connections and refuses new ones until passed again', async () => {
    const open = exchange(proxy, 'hold');
    await waitFor(() => held.length === 1);
    proxy.cut();
    expect((await open).error).toBe('ECONNRESET');
    const refused = proxy.stats().refused;
    expect((await exchange(proxy)).error).toBe('ECONNRESET');
    expect(proxy.stats().refused).toBe(refused + 1);
    proxy.pass();
    expect((await exchange(proxy)).data.equals(BODY)).toBe(true);
  });

  it('slow trickles the answer in small pieces, every byte intact', async () => {
    proxy.set({ kind: 'slow', chunkBytes: 256, intervalMs: 2 });
    const result = await exchange(proxy);
    expect(result.data.equals(BODY)).toBe(true);
    expect(result.chunks).toBeGreaterThanOrEqual(BODY.length / 256);
  });

  it('a trickle switched back to pass flushes the rest at once', async () => {
    proxy.set({ kind: 'slow', chunkBytes: 1, intervalMs: 50 });
    const pending = exchange(proxy);
    await waitFor(() => proxy.stats().open === 1);
    proxy.pass();
    expect((await pending).data.equals(BODY)).toBe(true);
  });

  it('truncate ends the answer after the given bytes', async () => {
    proxy.set({ kind: 'truncate', afterBytes: 1000 });
    const result = await exchange(proxy);
    expect(result.data.length).toBe(1000);
    expect(result.data.equals(BODY.subarray(0, 1000))).toBe(true);
  });

  it('corrupt flips the bytes it says, and only those', async () => {
    proxy.set({ kind: 'corrupt', afterBytes: 100, everyBytes: 1000 });
    const result = await exchange(proxy);
    expect(result.data.length).toBe(BODY.length);
    const differing = [...result.data.keys()].filter((i) => result.data[i] !== BODY[i]);
    expect(differing).toEqual([100, 1100, 2100, 3100]);
    expect(result.data[100]).toBe(BODY[100] ^ 0xff);
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
