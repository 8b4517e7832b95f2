import { closeSync, existsSync, fsyncSync, linkSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { NO_DEADLINE, type Deadline } from '../deadline';
import { runGit } from '../git-process';
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

function loosePath(objectsDir: string, id: string): string {
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
