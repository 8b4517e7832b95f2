import { fstatSync, readSync } from 'node:fs';

export const STDIN_CAP_BYTES = 64 * 1024 * 1024;

export interface StdinText {
  text: string;
  truncated: boolean;
}

// Reads all of stdin synchronously (hooks are one-shot: no event loop needed), up to `cap` bytes.
// A terminal, a closed descriptor or a non-blocking pipe that never fills reads as what arrived so far.
export function readStdinSync(cap = STDIN_CAP_BYTES, waitMs = 2_000): StdinText {
  if (isTerminalOrMissing()) return { text: '', truncated: false };
  const chunks: Buffer[] = [];
  let total = 0;
  const buffer = Buffer.alloc(64 * 1024);
  const giveUpAt = Date.now() + waitMs;
  for (;;) {
    let n: number;
    try {
      n = readSync(0, buffer, 0, buffer.length, null);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EINTR') continue; // a signal arrived mid-read: read again
      if (code === 'EAGAIN' && Date.now() < giveUpAt) {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
        continue;
      }
      if (code === 'EAGAIN' || code === 'EOF' || code === 'EBADF' || code === 'ENXIO' || code === 'EISDIR') break;
      throw error;
    }
    if (n === 0) break;
    if (total + n > cap) {
      chunks.push(Buffer.from(buffer.subarray(0, cap - total)));
      return { text: Buffer.concat(chunks).toString('utf8'), truncated: true };
    }
    chunks.push(Buffer.from(buffer.subarray(0, n)));
    total += n;
  }
  return { text: Buffer.concat(chunks).toString('utf8'), truncated: false };
}

// A terminal (or /dev/null) carries no payload. fstat, not process.stdin.isTTY: touching process.stdin
// loads Node's net and tty modules, a measurable share of a hook's start-up.
function isTerminalOrMissing(): boolean {
  try {
    return fstatSync(0).isCharacterDevice();
  } catch {
    return true;
  }
}
