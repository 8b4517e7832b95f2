import { closeSync, constants, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { IC_APPLICATION_ID } from './application-id';
import { IcError } from '../core/errors';

// What sits at a database path, judged from the file system and SQLite's 100-byte header alone, before
// SQLite opens it: ic must not touch a file that is not its own (not even to set WAL mode).
export type DbFileKind =
  | { kind: 'missing' }
  | { kind: 'not_regular'; what: string }
  /** `start`: its first bytes (at most 16), for the message. */
  | { kind: 'not_sqlite'; start: string }
  /** Empty, or a SQLite file with no schema yet: ic may take it. */
  | { kind: 'blank' }
  | { kind: 'ic' }
  | { kind: 'foreign'; applicationId: number };

const MAGIC = 'SQLite format 3\u0000';
const HEADER_BYTES = 100;
const SCHEMA_COOKIE_OFFSET = 40;
const APPLICATION_ID_OFFSET = 68;

// O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever.
export function classifyDbFile(path: string): DbFileKind {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing' };
    throw error;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return { kind: 'not_regular', what: describeFileType(stat) };
    const header = Buffer.alloc(HEADER_BYTES);
    const read = readSync(fd, header, 0, HEADER_BYTES, 0);
    if (read === 0) return { kind: 'blank' };
    if (read < HEADER_BYTES || header.toString('latin1', 0, 16) !== MAGIC) return { kind: 'not_sqlite', start: header.toString('latin1', 0, Math.min(read, 16)) };
    const applicationId = header.readUInt32BE(APPLICATION_ID_OFFSET);
    if (applicationId === IC_APPLICATION_ID) return { kind: 'ic' };
    // ic sets the application id in the transaction that creates its first table, so a file with a
    // schema but another id is not ic's. (A header with no schema may be stale while a WAL holds newer
    // pages: open.ts asks SQLite again in that case.)
    return header.readUInt32BE(SCHEMA_COOKIE_OFFSET) === 0 ? { kind: 'blank' } : { kind: 'foreign', applicationId };
  } finally {
    closeSync(fd);
  }
}

// What a path is, in words, for errors about a file that is not where or what it should be.
export function describeFileType(stat: import('node:fs').Stats): string {
  if (stat.isFile()) return 'a file';
  if (stat.isDirectory()) return 'a directory';
  if (stat.isFIFO()) return 'a FIFO (named pipe)';
  if (stat.isSocket()) return 'a socket';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

// SQLite opens PATH-journal, PATH-wal and PATH-shm itself, with a blocking open: a FIFO there hung every
// command and hook. Each that exists must be a regular file; judged by stat, which never opens it.
export function oddSidecar(path: string): { path: string; what: string } | undefined {
  for (const suffix of ['-journal', '-wal', '-shm']) {
    const sidecar = `${path}${suffix}`;
    const stat = statSync(sidecar, { throwIfNoEntry: false });
    if (stat !== undefined && !stat.isFile()) return { path: sidecar, what: describeFileType(stat) };
  }
  return undefined;
}

// A database ic is asked to read but not to own (init --import): a regular file, with regular sidecars,
// judged without a blocking open. Throws DB_UNAVAILABLE naming the path.
export function checkReadableDbFile(path: string, what: string): void {
  const file = classifyDbFile(path);
  if (file.kind === 'missing') throw new IcError('DB_UNAVAILABLE', `${what} ${path} does not exist`, { path });
  if (file.kind === 'not_regular') throw new IcError('DB_UNAVAILABLE', `${what} ${path} is ${file.what}, not a file`, { path });
  const odd = oddSidecar(path);
  if (odd !== undefined) throw new IcError('DB_UNAVAILABLE', `${odd.path} is ${odd.what}, not a file; SQLite would wait on it forever`, { path: odd.path });
}

// A WAL with frames in it (past its 32-byte header): pages newer than the file's, which SQLite reads too. A
// database's first transactions stay there until a checkpoint (the last connection's close, or 1,000 pages),
// so a header that reads "no schema" beside one is not an empty database (while another process has it open,
// or after a writer was killed).
export function walHasFrames(path: string): boolean {
  return (statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0) > 32;
}
