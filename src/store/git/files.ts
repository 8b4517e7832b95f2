import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { isLiteral, literalBase, unescapeLiteral } from '../../core/glob/syntax';
import type { FileState } from '../custody';
import { blobId, hashFile, storeFile, STREAM_BYTES, writeBlob } from './git-objects';
import { NO_DEADLINE, type Deadline } from '../deadline';
import { readIndex, type IndexEntry } from './index-file';
import { gitDirOf } from '../discover';

// The files of one git work tree as custody sees them: where git keeps its index and objects, the state
// of a file (its blob id, found from its stat data when a known state has the same stat), and the files
// a lock's pattern covers.

export interface Repo {
  root: string;
  /** This work tree's git dir (its index); a linked worktree has its own. */
  gitDir: string;
  commonDir: string;
  objectsDir: string;
}

export function repoAt(root: string, commonDir: string): Repo {
  let gitDir: string;
  try {
    gitDir = gitDirOf(join(root, '.git'));
  } catch {
    gitDir = commonDir;
  }
  return { root, gitDir, commonDir, objectsDir: join(commonDir, 'objects') };
}

export const ABSENT: FileState = { blob: null, mode: 0, stat: '' };

export function signature(st: Stats): string {
  return `${st.size}:${st.mtimeMs}:${st.ctimeMs}:${st.ino}`;
}

// git's modes: a symlink, an executable file, a plain file.
export function gitMode(st: Stats): number {
  if (st.isSymbolicLink()) return 0o120000;
  return st.mode & 0o111 ? 0o100755 : 0o100644;
}

// A file or symlink: what custody keeps content of (anything else reads as absent).
export function isContent(st: Stats | null): st is Stats {
  return st !== null && (st.isFile() || st.isSymbolicLink());
}

// Whether a file's lstat (null: absent) is still the state custody has for it, by stat alone: absent for
// an absent state, else the same signature and git mode.
export function inState(st: Stats | null, state: { blob: string | null; mode: number; stat: string }): boolean {
  return state.blob === null ? !isContent(st) : isContent(st) && signature(st) === state.stat && gitMode(st) === state.mode;
}

// Most held patterns name paths that do not exist: no exception (and no stack) for those.
const NO_THROW = { throwIfNoEntry: false } as const;

export function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path, NO_THROW) ?? null;
  } catch {
    return null;
  }
}

// The file's state now. `known` states (a snapshot, the holder's record) with the same stat give the blob
// without reading the file; otherwise it is read and hashed, and with `store` also kept as a blob. A large
// file is streamed, within the deadline (TIMEOUT past it).
export function fileState(repo: Repo, path: string, known: readonly (FileState | undefined)[], store: boolean, deadline: Deadline = NO_DEADLINE): FileState {
  const absolute = join(repo.root, path);
  const st = lstatOrNull(absolute);
  if (!isContent(st)) return ABSENT;
  const stat = signature(st);
  const mode = gitMode(st);
  for (const state of known) if (state && state.blob !== null && state.stat === stat && state.mode === mode) return { blob: state.blob, mode, stat };
  if (st.isFile() && st.size > STREAM_BYTES) {
    try {
      return { blob: store ? storeFile(repo.objectsDir, absolute, deadline) : hashFile(absolute, deadline), mode, stat };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return ABSENT;
      throw error;
    }
  }
  let content: Buffer;
  try {
    content = st.isSymbolicLink() ? Buffer.from(readlinkSync(absolute)) : readFileSync(absolute);
  } catch {
    return ABSENT;
  }
  const blob = store ? writeBlob(repo.objectsDir, content) : blobId(content);
  return { blob, mode, stat };
}

// The index entry as a state: its stat data is git's (seconds and inode only), so it never equals a
// signature; a clean file is recognised by comparing blob ids instead.
export function indexState(entry: IndexEntry): FileState {
  return { blob: entry.blob, mode: entry.mode, stat: `index:${entry.size}:${entry.mtimeMs}:${entry.ino}` };
}

// Whether the file still matches its index entry by stat alone (size, mtime to the ms, inode): git's own
// cheap test. A mismatch only means "maybe changed"; the caller then hashes.
export function statMatchesIndex(repo: Repo, entry: IndexEntry): boolean {
  const st = lstatOrNull(join(repo.root, entry.path));
  return st !== null && st.size === entry.size && Math.floor(st.mtimeMs) === entry.mtimeMs && (st.ino & 0xffffffff) >>> 0 === entry.ino;
}

export interface HeldPattern {
  pattern: string;
  holder: string;
  lockId: string;
  createdAt: number;
}

// A pattern's files: a literal pattern names one; a glob covers the tracked files it matches (read from
// the index), recorded files below its base, and the untracked files under its base directory.
export interface Covered {
  /** Path → the pattern that covers it (the first one, in lock order). */
  files: Map<string, HeldPattern>;
  /** Tracked files under the globs, with their index entries. */
  tracked: Map<string, IndexEntry>;
}

// `match`: the glob matcher (core/glob's matchPath), passed in so that a caller holding only literal patterns
// need not load it (the shell hooks' fast path).
export function coveredFiles(repo: Repo, patterns: readonly HeldPattern[], extra: (base: string) => string[], match: (pattern: string, path: string) => boolean): Covered {
  const files = new Map<string, HeldPattern>();
  const tracked = new Map<string, IndexEntry>();
  const globs: HeldPattern[] = [];
  for (const held of patterns) {
    if (isLiteral(held.pattern)) {
      const path = unescapeLiteral(held.pattern);
      if (!files.has(path)) files.set(path, held);
    } else globs.push(held);
  }
  if (globs.length === 0) return { files, tracked };
  const bases = globs.map((g) => literalBase(g.pattern));
  const underAnyBase = isUnderAny(bases);
  const matching = (path: string): HeldPattern | undefined => globs.find((g) => match(g.pattern, path));
  for (const entry of readIndex(join(repo.gitDir, 'index'), underAnyBase, bases)) {
    const held = matching(entry.path);
    if (held && !files.has(entry.path)) {
      files.set(entry.path, held);
      tracked.set(entry.path, entry);
    }
  }
  const exists = existenceProbe(repo.root);
  for (const base of new Set(bases)) {
    for (const path of [...extra(base), ...(base === '' || exists(base) ? untrackedUnder(repo, base, tracked) : [])]) {
      const held = matching(path);
      if (held && !files.has(path)) files.set(path, held);
    }
  }
  return { files, tracked };
}

// Does a path exist below the root? By reading each parent directory once, so a thousand held patterns in
// one missing directory cost one read, not a thousand failed stats.
export function existenceProbe(root: string): (path: string) => boolean {
  const listings = new Map<string, Set<string> | null>();
  const childrenOf = (dir: string): Set<string> | null => {
    let names = listings.get(dir);
    if (names !== undefined) return names;
    const slash = dir.lastIndexOf('/');
    const parentHas = dir === '' || (childrenOf(slash === -1 ? '' : dir.slice(0, slash))?.has(dir.slice(slash + 1)) ?? false);
    try {
      names = parentHas ? new Set(readdirSync(dir === '' ? root : join(root, dir))) : null;
    } catch {
      names = null; // not a directory, or unreadable: nothing below it is listed
    }
    listings.set(dir, names);
    return names;
  };
  return (path) => {
    const slash = path.lastIndexOf('/');
    return childrenOf(slash === -1 ? '' : path.slice(0, slash))?.has(path.slice(slash + 1)) ?? false;
  };
}

// Is a path at or below one of the bases? By its own prefixes, so a thousand held patterns cost each
// index entry a few lookups, not a thousand comparisons.
function isUnderAny(bases: readonly string[]): (path: string) => boolean {
  if (bases.includes('')) return () => true;
  const set = new Set(bases);
  return (path) => {
    if (set.has(path)) return true;
    for (let slash = path.indexOf('/'); slash !== -1; slash = path.indexOf('/', slash + 1)) if (set.has(path.slice(0, slash))) return true;
    return false;
  };
}

// Files under a directory that the index does not know: what a command may have created there. `.git`
// and nested repositories are skipped. Bounded by the glob's base directory, never the whole tree unless
// the glob has no base.
function untrackedUnder(repo: Repo, base: string, tracked: Map<string, IndexEntry>): string[] {
  const found: string[] = [];
  const start = base === '' ? repo.root : join(repo.root, base);
  const st = lstatOrNull(start);
  if (st === null) return found;
  if (!st.isDirectory()) return tracked.has(base) ? [] : [base];
  const walk = (dir: string, rel: string): void => {
    let names: import('node:fs').Dirent[];
    try {
      names = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of names) {
      if (entry.name === '.git') continue;
      const childRel = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) {
        if (existsSync(join(dir, entry.name, '.git'))) continue;
        walk(join(dir, entry.name), childRel);
      } else if (!tracked.has(childRel)) found.push(childRel);
    }
  };
  walk(start, base);
  return found;
}

// The recorded paths strictly below each directory ('' for all), from one read: a thousand held patterns
// must not cost a thousand queries.
export function pathsBelow(paths: readonly string[]): (base: string) => string[] {
  const below = new Map<string, string[]>();
  for (const path of paths) {
    for (let slash = path.indexOf('/'); slash !== -1; slash = path.indexOf('/', slash + 1)) {
      const dir = path.slice(0, slash);
      const list = below.get(dir);
      if (list) list.push(path);
      else below.set(dir, [path]);
    }
  }
  return (base) => (base === '' ? [...paths] : (below.get(base) ?? []));
}
