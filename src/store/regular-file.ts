import { closeSync, constants, fstatSync, openSync, readFileSync, readSync } from 'node:fs';

// The text of a regular file (its last `tailBytes` bytes when it is longer), or undefined when there is none to
// read (missing, unreadable, not a file). O_NONBLOCK: a FIFO is opened without waiting for a writer, then refused by its type.
export function readRegularFile(path: string, tailBytes = Infinity): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return undefined;
    if (stat.size <= tailBytes) return readFileSync(fd, 'utf8');
    const tail = Buffer.alloc(tailBytes);
    readSync(fd, tail, 0, tailBytes, stat.size - tailBytes);
    return tail.toString('utf8');
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}
