import { closeSync, existsSync, fstatSync, fsyncSync, linkSync, mkdirSync, openSync, readFileSync, readSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { NO_DEADLINE, type Deadline } from '../deadline';
import { runGit } from './git-process';
import { crypto, zlib } from '../../lazy-builtins';

// Git's object store, used as a content-addressed copy store: a file's content is kept as a blob under its
// own id, so the same content is never stored twice and git's own tools can read it. Loose objects are
// written and read in-process (zlib + sha1: no git process on the hook path); a packed object is read
// through `git cat-file`, which only a restore ever needs.

function header(length: number): Buffer {
  return Buffer.from(`blob ${length}\0`, 'latin1');
}

// The blob id git gives this content (`git hash-object`).
export function blobId(content: Buffer): string {
  return crypto().createHash('sha1').update(header(content.length)).update(content).digest('hex');
}

export function loosePath(objectsDir: string, id: string): string {
  return join(objectsDir, id.slice(0, 2), id.slice(2));
}

// Stores the content as a loose blob unless that id is already stored loose; returns its id. Written to a
// temporary file and linked into place, so a reader never sees half an object and racing writers agree.
export function writeBlob(objectsDir: string, content: Buffer, id: string = blobId(content)): string {
  const target = loosePath(objectsDir, id);
  if (existsSync(target)) return id;
  const dir = join(objectsDir, id.slice(0, 2));
  mkdirSync(dir, { recursive: true });
  const tmp = join(dir, `tmp_ic_${process.pid}_${id.slice(2, 10)}`);
  const fd = openSync(tmp, 'w', 0o444);
  try {
    const data = zlib().deflateSync(Buffer.concat([header(content.length), content]), { level: 1 });
    for (let offset = 0; offset < data.length;) offset += writeSync(fd, data, offset);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(tmp, target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') renameSync(tmp, target);
  } finally {
    rmSync(tmp, { force: true });
  }
  return id;
}

// The content of a blob: loose in-process, else (packed) through git. Throws when git has no such blob.
export function readBlob(objectsDir: string, gitDir: string, id: string, deadline: Deadline = NO_DEADLINE): Buffer {
  const path = loosePath(objectsDir, id);
  if (existsSync(path)) {
    const raw = zlib().inflateSync(readFileSync(path));
    const nul = raw.indexOf(0);
    if (nul < 0 || !raw.subarray(0, nul).toString('latin1').startsWith('blob ')) throw new Error(`git object ${id} is not a blob`);
    return raw.subarray(nul + 1);
  }
  return runGit(['--git-dir', gitDir, 'cat-file', 'blob', id], { maxBuffer: 1024 * 1024 * 1024 }, deadline);
}

// Files above this size are hashed and stored by streaming (1 MiB at a time, never whole in memory), and
// their blobs put back by `git cat-file` writing straight into the file: custody's size policy
// (docs/custody-restore.md, "Large files").
export const STREAM_BYTES = 8 * 1024 * 1024;
const CHUNK = 1024 * 1024;

// A file's blob id, read in chunks. `deadline` is checked between chunks: a file too large to read in what
// is left of the hook's budget throws TIMEOUT rather than letting the client kill the hook.
export function hashFile(path: string, deadline: Deadline = NO_DEADLINE): string {
  return streamFile(path, deadline, undefined);
}

// Stores a file as a loose blob in one pass (hashed while written, so the file is read once) and returns its
// id. Large contents are written as zlib "stored" blocks (no compression: disk speed, not CPU time; git reads
// them as any loose object, and `git gc` packs them as usual).
export function storeFile(objectsDir: string, path: string, deadline: Deadline = NO_DEADLINE): string {
  mkdirSync(objectsDir, { recursive: true });
  const tmp = join(objectsDir, `tmp_ic_${process.pid}_${Math.random().toString(36).slice(2, 10)}`);
  try {
    const id = streamFile(path, deadline, tmp);
    const target = loosePath(objectsDir, id);
    if (!existsSync(target)) {
      mkdirSync(join(objectsDir, id.slice(0, 2)), { recursive: true });
      try {
        linkSync(tmp, target);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
    }
    return id;
  } finally {
    rmSync(tmp, { force: true });
  }
}

function streamFile(path: string, deadline: Deadline, storeTo: string | undefined): string {
  const fd = openSync(path, 'r');
  const out = storeTo === undefined ? undefined : new StoredZlibWriter(openSync(storeTo, 'wx', 0o444));
  try {
    const size = fstatSync(fd).size;
    const head = header(size);
    const hash = crypto().createHash('sha1').update(head);
    out?.write(head);
    const buffer = Buffer.allocUnsafe(CHUNK);
    let total = 0;
    for (;;) {
      if (deadline.leftMs() <= 0) throw deadline.exceeded('reading a large held file');
      const read = readSync(fd, buffer, 0, CHUNK, null);
      if (read === 0) break;
      const chunk = buffer.subarray(0, Math.min(read, size - total));
      total += chunk.length;
      hash.update(chunk);
      out?.write(chunk);
      if (total >= size) break; // the size git's header names: a file growing meanwhile is not read past it
    }
    if (total !== size) throw new Error(`${path} shrank while it was read`);
    out?.finish();
    return hash.digest('hex');
  } finally {
    closeSync(fd);
    out?.close();
  }
}

// zlib's format with "stored" (uncompressed) deflate blocks (RFC 1950/1951): header, blocks of at most
// 65,535 bytes, an empty final block, the Adler-32 of the data.
class StoredZlibWriter {
  private a = 1;
  private b = 0;
  constructor(private readonly fd: number) {
    this.put(Buffer.from([0x78, 0x01]));
  }
  write(data: Buffer): void {
    for (let offset = 0; offset < data.length; offset += 65_535) {
      const block = data.subarray(offset, offset + 65_535);
      const head = Buffer.alloc(5);
      head[0] = 0; // not final, stored
      head.writeUInt16LE(block.length, 1);
      head.writeUInt16LE(~block.length & 0xffff, 3);
      this.put(head);
      this.put(block);
      this.adler(block);
    }
  }
  finish(): void {
    const tail = Buffer.from([0x01, 0x00, 0x00, 0xff, 0xff, 0, 0, 0, 0]);
    tail.writeUInt32BE(((this.b << 16) | this.a) >>> 0, 5);
    this.put(tail);
    fsyncSync(this.fd);
  }
  close(): void {
    closeSync(this.fd);
  }
  private adler(data: Buffer): void {
    let { a, b } = this;
    for (let i = 0; i < data.length;) {
      const end = Math.min(i + 5_552, data.length); // zlib's NMAX: the sums are reduced before they grow large
      for (; i < end; i++) {
        a += data[i]!;
        b += a;
      }
      a %= 65_521;
      b %= 65_521;
    }
    this.a = a;
    this.b = b;
  }
  private put(data: Buffer): void {
    for (let offset = 0; offset < data.length;) offset += writeSync(this.fd, data, offset);
  }
}

// Writes a blob's content into an open file: in-process for a small loose object, else streamed by
// `git cat-file` straight into the file (a packed object, or a large one), bounded by the deadline.
export function copyBlobTo(objectsDir: string, gitDir: string, id: string, fd: number, deadline: Deadline = NO_DEADLINE): void {
  const loose = statSync(loosePath(objectsDir, id), { throwIfNoEntry: false });
  if (loose !== undefined && loose.size <= STREAM_BYTES / 8) {
    const content = readBlob(objectsDir, gitDir, id, deadline);
    for (let offset = 0; offset < content.length;) offset += writeSync(fd, content, offset);
    return;
  }
  runGit(['--git-dir', gitDir, 'cat-file', 'blob', id], { stdout: fd }, deadline);
}
