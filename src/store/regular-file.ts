import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';

// The text of a regular file, or undefined when there is none to read (missing, unreadable, not a file).
// O_NONBLOCK: a FIFO is opened without waiting for a writer, then refused by its type.
export function readRegularFile(path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    return fstatSync(fd).isFile() ? readFileSync(fd, 'utf8') : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}
