import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import type { HookInput } from './hook-types';

export const STDIN_CAP_BYTES = 64 * 1024 * 1024;

// Reads all of stdin synchronously (hooks are one-shot: no event loop needed), up to `cap` bytes, waiting
// at most `waitMs` in all for the end of input. A terminal or a closed descriptor reads as empty.
export function readStdinSync(cap = STDIN_CAP_BYTES, waitMs = 2_000): HookInput {
  const stat = stdinStat();
  // A terminal (or /dev/null) carries no payload; nor does a closed descriptor.
  if (stat === undefined || stat.isCharacterDevice()) return { text: '', truncated: false };
  const source = nonBlockingStdin(stat);
  try {
    return readUntil(source.fd, cap, Date.now() + waitMs);
  } finally {
    source.done();
  }
}

// Into one buffer, grown by doubling: a payload (almost always one read) is decoded where it was read,
// with no copies (each first use of a Buffer method costs a hook a fraction of a millisecond).
function readUntil(fd: number, cap: number, giveUpAt: number): HookInput {
  let buffer = Buffer.allocUnsafe(Math.min(64 * 1024, cap + 1));
  let total = 0;
  let idle = 0;
  const text = (): string => buffer.toString('utf8', 0, Math.min(total, cap));
  for (;;) {
    if (total === buffer.length) {
      const bigger = Buffer.allocUnsafe(Math.min(buffer.length * 2, cap + 1));
      buffer.copy(bigger, 0, 0, total);
      buffer = bigger;
    }
    let n: number;
    try {
      n = readSync(fd, buffer, total, buffer.length - total, null);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EINTR') continue; // a signal arrived mid-read: read again
      if (code === 'EAGAIN') {
        const left = giveUpAt - Date.now();
        if (left <= 0) return { text: text(), truncated: false, timedOut: true };
        // Nothing yet: a short nap, 1 ms at first (a payload is usually on its way), then up to 5 ms.
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Math.min(left, 1 + Math.min(4, idle++ >> 1)));
        continue;
      }
      if (code === 'EOF' || code === 'EBADF' || code === 'ENXIO' || code === 'EISDIR') break;
      throw error;
    }
    if (n === 0) break;
    idle = 0;
    total += n;
    if (total > cap) return { text: text(), truncated: true };
  }
  return { text: text(), truncated: false };
}

// stdin as a descriptor whose reads never block, so the wait above is what bounds them (a writer may hold
// a pipe open without ever closing it). Node has no fcntl, and process.stdin would load its net and tty
// modules (a measurable share of a hook's start-up), so:
// - a pipe or FIFO is opened again through /proc/self/fd/0 with O_NONBLOCK: a descriptor of our own, the
//   shared one untouched (Linux);
// - a socket (what Node- and Bun-based agents give a hook: a socketpair) cannot be opened again: a
//   net.Socket that never reads wraps it, and libuv switches fd 0 to non-blocking (Node puts its flags back at
//   exit). It loads node:net (~3 ms); Node's own pipe handle did it for less, but that is a Node internal, and
//   a read left blocked in libuv's thread pool would keep process.exit() from returning (docs/performance.md);
// - anything else (a regular file never blocks) is read as it is, as is every case where the above fails.
function nonBlockingStdin(stat: Stats): { fd: number; done(): void } {
  if (stat.isFIFO()) {
    try {
      const fd = openSync('/proc/self/fd/0', constants.O_RDONLY | constants.O_NONBLOCK);
      return { fd, done: () => closeSync(fd) };
    } catch {
      // no /proc (not Linux): the socket's way below
    }
  }
  if (stat.isFIFO() || stat.isSocket()) {
    try {
      new (require('node:net') as typeof import('node:net')).Socket({ fd: 0, readable: false, writable: false });
    } catch {
      // a descriptor Node will not wrap: stdin is read as it is
    }
  }
  return { fd: 0, done: () => {} };
}

// fstat, once, rather than process.stdin.isTTY: touching process.stdin loads Node's net and tty modules,
// a measurable share of a hook's start-up.
function stdinStat(): Stats | undefined {
  try {
    return fstatSync(0);
  } catch {
    return undefined;
  }
}
