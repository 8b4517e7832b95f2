import { readSync, writeSync } from 'node:fs';
import type { Socket, TcpSocketConnectOpts } from 'node:net';

// node:net on first use: the SQLite hooks carry this module in their bundle and must not pay for loading it.
function newSocket(): Socket {
  return new (require('node:net') as typeof import('node:net')).Socket();
}

// A connected stream socket read and written synchronously, for ic's synchronous store: the socket is made
// with `net` (whose connect(2) is issued at once, before any event-loop turn) and then read and written
// through its file descriptor, never by libuv (the socket is paused, so libuv never reads it). While
// connecting and logging in, under connect_timeout, the descriptor stays non-blocking: a read with nothing
// to read yet (EAGAIN) tries again at once for a moment, then waits on a futex for a short, growing
// interval. Once logged in, block() makes it blocking.
export class SyncSocket {
  private readonly sleeper = new Int32Array(new SharedArrayBuffer(4));
  private closed = false;
  private blocking = false;
  // One buffer for every read: what a read returns is used (or copied) before the next one.
  private readonly incoming = Buffer.allocUnsafe(65_536);

  private constructor(
    private readonly socket: Socket,
    private readonly fd: number,
  ) {}

  static connectUnix(path: string): SyncSocket {
    const socket = newSocket();
    socket.on('error', () => undefined); // errors surface through the descriptor's reads and writes
    socket.connect({ path });
    return SyncSocket.adopt(socket);
  }

  // `address` is an IP literal. net connects to a literal only on the next tick, but to a name it looks up at
  // once: a lookup that answers synchronously with the literal starts connect(2) now.
  static connectTcp(address: string, port: number, family: 4 | 6): SyncSocket {
    const socket = newSocket();
    socket.on('error', () => undefined);
    const connectOptions: TcpSocketConnectOpts = {
      host: 'ic-postgres-address',
      port,
      family,
      autoSelectFamily: false,
      lookup: ((_name: string, _options: unknown, answer: (error: null, address: string, family: number) => void) => answer(null, address, family)) as TcpSocketConnectOpts['lookup'],
    };
    socket.connect(connectOptions);
    socket.setNoDelay(true);
    return SyncSocket.adopt(socket);
  }

  // From here on, reads and writes wait in the kernel until they can go on, as libpq's do once connected: no
  // polling, and a reply is read the moment it arrives. The server's own timeouts (lock_timeout,
  // statement_timeout) bound every wait; a server that stops answering altogether is waited for, as libpq does.
  block(): void {
    const handle = (this.socket as unknown as { _handle?: { setBlocking?: (on: boolean) => number } })._handle;
    if (handle?.setBlocking?.(true) === 0) this.blocking = true;
  }

  private static adopt(socket: Socket): SyncSocket {
    socket.pause();
    const fd = (socket as unknown as { _handle?: { fd?: number } })._handle?.fd;
    if (typeof fd !== 'number' || fd < 0) {
      socket.destroy();
      throw new Error('could not open a socket');
    }
    return new SyncSocket(socket, fd);
  }

  // Writes all of `bytes` before `deadline` (epoch ms). A TCP socket still connecting answers EAGAIN.
  write(bytes: Buffer, deadline: number): void {
    let at = 0;
    let waited = 0;
    while (at < bytes.length) {
      try {
        at += writeSync(this.fd, bytes, at, bytes.length - at);
        waited = 0;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
        waited = this.pause(waited, deadline);
      }
    }
  }

  // What has arrived, waiting until something has or `deadline` passes (then undefined). An empty buffer:
  // the server closed the connection. The bytes are valid until the next read.
  read(deadline: number): Buffer | undefined {
    const buffer = this.incoming;
    let waited = 0;
    for (;;) {
      try {
        const count = readSync(this.fd, buffer, 0, buffer.length, null);
        return buffer.subarray(0, count);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN' || this.blocking) throw error;
        if (Date.now() >= deadline) return undefined;
        waited = this.pause(waited, deadline);
      }
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.socket.destroy();
  }

  // Waits a little, longer the longer the wait has lasted: for the first half millisecond it only yields (a
  // reply over a local socket usually comes within it, and a futex sleep costs ~0.25 ms to wake from here),
  // then sleeps 0.1 ms steps up to 20 ms, then 2 ms. Returns the time waited so far (ms, roughly).
  private pause(waited: number, deadline: number): number {
    if (Date.now() >= deadline) {
      const error = new Error('timed out') as NodeJS.ErrnoException;
      error.code = 'ETIMEDOUT';
      throw error;
    }
    if (waited < 0.5) return waited + 0.005; // one more read(2) is the whole wait
    const step = waited < 20 ? 0.1 : 2;
    Atomics.wait(this.sleeper, 0, 0, step);
    return waited + step;
  }
}
