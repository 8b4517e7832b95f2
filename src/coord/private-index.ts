import { lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { resolveProject, type Project } from './context';
import { privateIndexDir } from './private-index-dir';
import { crypto } from '../lazy-builtins';

// Where private staging areas live and what their `.base` sidecar says (README, "Private staging
// areas"). The git side (building and refreshing an index) is src/hooks/git-index.ts.

export interface IndexBase {
  /** The HEAD commit the index was built on ('' on an unborn branch). */
  base: string;
  owner: string;
  /** The work tree the index belongs to (each worktree has its own HEAD). */
  worktree: string;
}

const SAFE = /^[A-Za-z0-9._-]{1,100}$/;

function short(text: string, length: number): string {
  return crypto().createHash('sha256').update(text).digest('hex').slice(0, length);
}

// `<git common dir>/ic/index`, beside the database; undefined outside git. `where`: a directory, or its project when known.
export function indexDirOf(where: string | Pick<Project, 'projectDb'>): string | undefined {
  const { projectDb } = typeof where === 'string' ? resolveProject(where) : where;
  return projectDb.source === 'git' ? privateIndexDir(projectDb.path) : undefined;
}

// The index file of one owner's session in the work tree holding `cwd`: `<owner>@<worktree hash>`, the owner
// kept when it is a plain name, else hashed. Subagents share their session's (one shell environment).
export function indexFileFor(cwd: string, owner: string): string | undefined {
  const project = resolveProject(cwd);
  const dir = indexDirOf(project);
  const session = owner.split('/')[0]!;
  return dir && join(dir, `${SAFE.test(session) ? session : short(session, 32)}@${short(project.projectRoot, 8)}`);
}

export function readIndexBase(index: string): IndexBase | undefined {
  try {
    if (statSync(`${index}.base`, { throwIfNoEntry: false })?.isFile() !== true) return undefined; // a FIFO would block the read
    const value = JSON.parse(readFileSync(`${index}.base`, 'utf8')) as Partial<IndexBase>;
    return typeof value.base === 'string' && typeof value.owner === 'string' && typeof value.worktree === 'string' ? (value as IndexBase) : undefined;
  } catch {
    return undefined;
  }
}

export function writeIndexBase(index: string, base: IndexBase): void {
  mkdirSync(dirname(index), { recursive: true });
  writeFileSync(`${index}.base`, `${JSON.stringify(base)}\n`);
}

export interface IndexFile {
  file: string;
  owner: string | undefined;
  /** The last write to the index or its sidecar (git add, commit, a refresh). */
  touched: number;
}

// Every private index in the directory (sidecars and leftovers of a rebuild are not listed on their own).
// Only regular files: anything else there (a directory, a FIFO, a symlink) is not ic's, and sweep skips it.
export function listIndexFiles(dir: string): IndexFile[] {
  let entries: import('node:fs').Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const files: IndexFile[] = [];
  for (const entry of entries) {
    const name = entry.name;
    if (!entry.isFile()) continue;
    if (name.endsWith('.base') || name.endsWith('.ic-new') || name.endsWith('.lock')) continue;
    const file = join(dir, name);
    const touched = Math.max(...[file, `${file}.base`].map((path) => mtimeOf(path)));
    files.push({ file, owner: readIndexBase(file)?.owner, touched });
  }
  return files;
}

function mtimeOf(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

export const INDEX_IDLE_MS = 24 * 3_600_000;

// The sweep's cleanup loop for private indexes: deletes those whose session showed no activity for `idleMs`
// by two witnesses that must agree, so no one clock's word is enough (a database dated in the future by a
// wrong clock must not delete a live session's staged work): the files themselves, untouched for `idleMs`
// by the real time (`wallNow`, the clock that stamped their mtimes), and the owner's last event or
// heartbeat, `idleMs` before the database's `now`. Returns the files deleted (or that would be).
export function sweepIndexFiles(dir: string, now: number, lastActive: (owner: string) => number | undefined, dryRun: boolean, idleMs = INDEX_IDLE_MS, wallNow = Date.now()): string[] {
  const deleted: string[] = [];
  for (const entry of listIndexFiles(dir)) {
    if (wallNow - entry.touched < idleMs) continue;
    if (entry.owner !== undefined && now - (lastActive(entry.owner) ?? 0) < idleMs) continue;
    deleted.push(entry.file);
    if (!dryRun) for (const file of [entry.file, `${entry.file}.base`, `${entry.file}.ic-new`]) if (lstatSync(file, { throwIfNoEntry: false })?.isFile()) rmSync(file, { force: true });
  }
  return deleted;
}
