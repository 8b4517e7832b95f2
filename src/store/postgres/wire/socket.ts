import { readSync, writeSync } from 'node:fs';
import { openTcpStream, openUnixStream, type StreamHandle } from './stream-handle';

// A connected stream socket read and written synchronously, for ic's synchronous store: connect(2) is issued
// at once (stream-handle.ts), and the descriptor is read and written directly, never by libuv (nothing asks
// libuv to read it). While connecting and logging in, under connect_timeout, the descriptor stays
// non-blocking: a read with nothing to read yet (EAGAIN) tries again at once for a moment, then waits on a
// futex for a short, growing interval. Once logged in, block() makes it blocking.
export class SyncSocket {
  private readonly sleeper = new Int32Array(new SharedArrayBuffer(4));
  private closed = false;
  private blocking = false;
  private readonly fd: number;
  // One buffer for every read: what a read returns is used (or copied) before the next one.
  private readonly incoming = Buffer.allocUnsafe(65_536);

  private constructor(private readonly stream: StreamHandle) {
    this.fd = stream.fd;
  }

  // A stream connected elsewhere (bin/ic's login ahead: wire/login-ahead.ts).
  static adopt(stream: StreamHandle): SyncSocket {
    return new SyncSocket(stream);
  }

  static connectUnix(path: string): SyncSocket {
    return new SyncSocket(openUnixStream(path));
  }

  // `address` is an IP literal.
  static connectTcp(address: string, port: number, family: 4 | 6): SyncSocket {
    return new SyncSocket(openTcpStream(address, port, family));
  }

  // From here on, reads and writes wait in the kernel until they can go on, as libpq's do once connected: no
  // polling, and a reply is read the moment it arrives. The server's own timeouts (lock_timeout,
  // statement_timeout) bound every wait; a server that stops answering altogether is waited for, as libpq does.
  block(): void {
    if (this.stream.setBlocking(true) === 0) this.blocking = true;
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
    this.stream.close();
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
