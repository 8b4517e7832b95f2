import { chmodSync, closeSync, copyFileSync, constants, fsyncSync, lstatSync, mkdirSync, openSync, readdirSync, readlinkSync, renameSync, symlinkSync, unlinkSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import type { FileState } from '../../store/custody';
import type { Deadline } from '../../store/deadline';
import { copyBlobTo, readBlob } from '../../store/git/git-objects';
import { ABSENT, gitMode, isContent, lstatOrNull, signature, type Repo } from '../../store/git/files';

// The only place custody writes or moves a user's file, and the checks that keep it where it belongs. Node
// has no openat, so every path component from the repository root is checked with lstat (never following a
// link): a symlink or a non-directory on the way, a component that is another repository's, or a held file
// turned into a directory means no write. New content is written to a temp file outside the work tree
// (<git common dir>/ic/tmp/, the same file system as a rule), the components are checked again, and the temp
// file is renamed into place: no reader sees half a file, and nothing of ic's is left in the work tree.

/** Why a restore (or move-aside) did not write. */
export type Refusal =
  | { reason: 'symlink'; at: string } // a path component (a parent directory) is a symlink
  | { reason: 'not_directory'; at: string } // a path component is a file, not a directory
  | { reason: 'outside'; at: string } // the path leaves the repository (`..`, `.git`, a nested repository)
  | { reason: 'directory'; at: string }; // the held file itself is now a directory

// Checks the path below the repository root: every parent a real directory of this repository (created when
// missing and `create`), the file itself not a directory. Undefined when a write there is safe.
export function checkTarget(repo: Repo, path: string, create: boolean): Refusal | undefined {
  const parts = path.split('/');
  if (isAbsolute(path) || parts.some((part) => part === '' || part === '.' || part === '..' || part === '.git')) return { reason: 'outside', at: path };
  let dir = repo.root;
  for (let i = 0; i < parts.length - 1; i++) {
    dir = join(dir, parts[i]!);
    const at = parts.slice(0, i + 1).join('/');
    let st = lstatOrNull(dir);
    if (st === null && create) {
      try {
        mkdirSync(dir); // one level: never through a link (an existing name, link or not, is EEXIST)
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      st = lstatOrNull(dir);
    }
    if (st === null) return undefined; // nothing there (no create): nothing to move either
    if (st.isSymbolicLink()) return { reason: 'symlink', at };
    if (!st.isDirectory()) return { reason: 'not_directory', at };
    if (lstatOrNull(join(dir, '.git')) !== null) return { reason: 'outside', at }; // another repository's work tree
  }
  if (lstatOrNull(join(repo.root, path))?.isDirectory()) return { reason: 'directory', at: path };
  return undefined;
}

// Puts a blob's content (and git mode) in place, or says why not. Streams large blobs (git cat-file into the
// temp file), so the file's size costs disk time, not memory.
export function writeContent(repo: Repo, path: string, state: FileState, deadline: Deadline): Refusal | undefined {
  const refusal = checkTarget(repo, path, true);
  if (refusal) return refusal;
  const target = join(repo.root, path);
  const tmp = tempPath(repo);
  try {
    fillTemp(repo, tmp, state, deadline);
    const again = checkTarget(repo, path, false); // right before the rename: a swap meanwhile is seen
    if (again) return again;
    try {
      renameSync(tmp, target);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EISDIR' || code === 'ENOTEMPTY' || code === 'EEXIST') return { reason: 'directory', at: path };
      if (code !== 'EXDEV') throw error;
      return renameBeside(repo, path, tmp);
    }
    return undefined;
  } finally {
    unlinkQuiet(tmp);
  }
}

// The state of a file just put back: the blob written, with the file's new stat (no second read of it).
export function writtenState(repo: Repo, path: string, written: FileState): FileState {
  const st = lstatOrNull(join(repo.root, path));
  return isContent(st) ? { blob: written.blob, mode: gitMode(st), stat: signature(st) } : ABSENT;
}

// Moves a file out of the work tree (to `to`, under the git dir), or says why not. A vanished file is no error.
export function moveAside(repo: Repo, path: string, to: string): Refusal | undefined {
  const refusal = checkTarget(repo, path, false);
  if (refusal) return refusal;
  const from = join(repo.root, path);
  const st = lstatOrNull(from);
  if (st === null) return undefined;
  mkdirSync(dirname(to), { recursive: true });
  try {
    renameSync(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    // Another file system (a linked worktree elsewhere): copied first, removed only once the copy is whole.
    if (st.isSymbolicLink()) symlinkSync(readlinkSync(from), to);
    else copyFileSync(from, to, constants.COPYFILE_EXCL);
    unlinkSync(from);
  }
  return undefined;
}

const TEMP_STALE_MS = 3_600_000;

// <git common dir>/ic/tmp/restore-<pid>-<random>: outside the work tree, on its file system as a rule. Temp
// files of a killed hook older than an hour are removed here.
function tempPath(repo: Repo): string {
  const dir = join(repo.commonDir, 'ic', 'tmp');
  mkdirSync(dir, { recursive: true });
  sweepTemp(dir);
  return join(dir, `restore-${process.pid}-${Math.random().toString(36).slice(2, 10)}`);
}

function sweepTemp(dir: string): void {
  try {
    const old = Date.now() - TEMP_STALE_MS;
    for (const name of readdirSync(dir)) {
      const st = lstatOrNull(join(dir, name));
      if (st !== null && st.mtimeMs < old) unlinkQuiet(join(dir, name));
    }
  } catch {
    // a sweep that fails leaves files for the next one
  }
}

function fillTemp(repo: Repo, tmp: string, state: FileState, deadline: Deadline): void {
  if (state.mode === 0o120000) {
    symlinkSync(readBlob(repo.objectsDir, repo.commonDir, state.blob!, deadline).toString(), tmp); // a link's target: a few bytes
    return;
  }
  const mode = state.mode === 0o100755 ? 0o755 : 0o644;
  const fd = openSync(tmp, 'wx', mode);
  try {
    copyBlobTo(repo.objectsDir, repo.commonDir, state.blob!, fd, deadline);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  chmodSync(tmp, mode);
}

// The temp file is on another file system than the work tree: copied to a hidden name beside the target
// (exclusive create, never through a link: the directory was just checked), checked again, renamed, and the
// copy removed whatever happens.
function renameBeside(repo: Repo, path: string, tmp: string): Refusal | undefined {
  const target = join(repo.root, path);
  const beside = join(dirname(target), `.ic-restore-${process.pid}-${Math.random().toString(36).slice(2, 10)}`);
  try {
    if (lstatSync(tmp).isSymbolicLink()) symlinkSync(readlinkSync(tmp), beside);
    else copyFileSync(tmp, beside, constants.COPYFILE_EXCL);
    const again = checkTarget(repo, path, false);
    if (again) return again;
    renameSync(beside, target);
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EISDIR' || code === 'ENOTEMPTY' || code === 'EEXIST') return { reason: 'directory', at: path };
    throw error;
  } finally {
    unlinkQuiet(beside);
  }
}

function unlinkQuiet(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone (renamed into place)
  }
}

// What the writer's model and the event say about a refusal.
export function refusalText(refusal: Refusal): string {
  switch (refusal.reason) {
    case 'symlink':
      return `${JSON.stringify(refusal.at)} is now a symbolic link, and ic never writes through one`;
    case 'not_directory':
      return `${JSON.stringify(refusal.at)} is now a file, not a directory`;
    case 'outside':
      return `${JSON.stringify(refusal.at)} leads outside this repository`;
    case 'directory':
      return 'it is now a directory (ic touched nothing in it)';
  }
}
