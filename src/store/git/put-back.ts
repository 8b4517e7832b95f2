import { chmodSync, closeSync, fsyncSync, lstatSync, mkdirSync, openSync, renameSync, rmSync, symlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { IcError } from '../../core/errors';

// Writes a kept content back at a path of the work tree (`coord undo`): never through a symlink or into
// something that is not a directory on the way, and whole or not at all (written beside it, then renamed
// over it, so a reader never sees half; a symlink at the path itself is replaced, not followed).
export function putBack(root: string, path: string, content: Buffer, mode: number): void {
  const parts = path.split('/');
  let dir = root;
  for (const part of parts.slice(0, -1)) {
    dir = join(dir, part);
    let st: import('node:fs').Stats | undefined;
    try {
      st = lstatSync(dir);
    } catch {
      mkdirSync(dir);
      continue;
    }
    const what = st.isSymbolicLink() ? 'a symlink' : 'not a directory'; // lstat: a symlink is never a directory
    if (!st.isDirectory())
      throw new IcError('INVALID_INPUT', `${JSON.stringify(path)} cannot be put back: ${JSON.stringify(parts.slice(0, parts.indexOf(part) + 1).join('/'))} is ${what} now`, { path });
  }
  const target = join(root, path);
  try {
    if (lstatSync(target).isDirectory()) throw new IcError('INVALID_INPUT', `${JSON.stringify(path)} cannot be put back: it is a directory now`, { path });
  } catch (error) {
    if (error instanceof IcError) throw error;
  }
  const tmp = `${target}.ic-undo-${process.pid}`;
  rmSync(tmp, { force: true });
  try {
    if (mode === 0o120000) symlinkSync(content.toString(), tmp);
    else {
      const fd = openSync(tmp, 'wx', 0o600);
      try {
        for (let offset = 0; offset < content.length;) offset += writeSync(fd, content, offset);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      chmodSync(tmp, mode === 0o100755 ? 0o755 : 0o644);
    }
    renameSync(tmp, target);
  } finally {
    rmSync(tmp, { force: true });
  }
}
