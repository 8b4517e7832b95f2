import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { readIndexBase, writeIndexBase } from '../coord/private-index';
import { isDeadlineExceeded, type Deadline } from '../store/deadline';
import { runGit } from '../store/git/git-process';

// A private staging area (README, "Private staging areas"): one git index file per agent session, so a
// commit holds exactly what its session staged. Its `.base` sidecar records the HEAD it was built on.
// The refresh rule: when HEAD is no longer the base, the index becomes HEAD plus the session's own staged
// changes (base → index); a path that HEAD also changed since the base keeps HEAD's version and must be
// staged again. So a commit from it never reverts what another session committed meanwhile.

export function git(args: string[], cwd: string, env: NodeJS.ProcessEnv, deadline: Deadline, input?: Buffer | string): Buffer {
  return runGit(args, { cwd, env, ...(input !== undefined ? { input } : {}) }, deadline);
}

// The paths a git command lists NUL-separated (-z), so that no name is misread.
export function gitPaths(args: string[], top: string, env: NodeJS.ProcessEnv, deadline: Deadline): string[] {
  return git(args, top, env, deadline).toString('utf8').split('\0').filter(Boolean);
}

function withIndex(env: NodeJS.ProcessEnv, index: string): NodeJS.ProcessEnv {
  return { ...env, GIT_INDEX_FILE: index };
}

// git's output, trimmed, or `fallback` when git fails; a hung git throws (it is not, say, an unborn branch).
export function gitOr(args: string[], top: string, env: NodeJS.ProcessEnv, deadline: Deadline, fallback: string): string {
  try {
    return git(args, top, env, deadline).toString('utf8').trim();
  } catch (error) {
    if (isDeadlineExceeded(error)) throw error;
    return fallback;
  }
}

// HEAD's commit id, or '' on an unborn branch.
export function headCommit(top: string, env: NodeJS.ProcessEnv, deadline: Deadline): string {
  return gitOr(['rev-parse', '--verify', '-q', 'HEAD^{commit}'], top, env, deadline, '');
}

// The tree a base names: the commit's, or the empty tree for an unborn branch (its id differs by hash).
function treeOf(top: string, env: NodeJS.ProcessEnv, commit: string, deadline: Deadline): string {
  if (commit !== '') return `${commit}^{tree}`;
  return git(['hash-object', '-t', 'tree', '--stdin'], top, env, deadline, '').toString('utf8').trim();
}

interface RawChange {
  srcMode: string;
  dstMode: string;
  dstSha: string;
  status: string;
  path: string;
}

// `git diff-* -z` raw output: ":srcmode dstmode srcsha dstsha status\0path\0" per change.
export function parseRaw(out: Buffer): RawChange[] {
  const fields = out.toString('utf8').split('\0');
  const changes: RawChange[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const head = fields[i]!;
    if (!head.startsWith(':')) break;
    const [srcMode, dstMode, , dstSha, status] = head.slice(1).split(' ');
    changes.push({ srcMode: srcMode!, dstMode: dstMode!, dstSha: dstSha!, status: status!, path: fields[i + 1]! });
  }
  return changes;
}

// Creates the session's index from HEAD (never from the shared index, which holds others' staged work).
export function seedIndex(top: string, index: string, owner: string, env: NodeJS.ProcessEnv, deadline: Deadline): boolean {
  if (existsSync(index)) return false;
  const head = headCommit(top, env, deadline);
  mkdirSync(dirname(index), { recursive: true });
  buildIndex(index, index, (tmp) => {
    git(head === '' ? ['read-tree', '--empty'] : ['read-tree', head], top, withIndex(env, tmp), deadline);
    refreshStat(top, tmp, env, deadline);
  });
  writeIndexBase(index, { base: head, owner, worktree: top });
  return true;
}

// Fills the stat data of a freshly read tree, so `git status` does not re-hash every file; best effort (it
// exits 1 when files differ from the index: the stat data is written all the same).
function refreshStat(top: string, index: string, env: NodeJS.ProcessEnv, deadline: Deadline): void {
  gitOr(['update-index', '-q', '--refresh'], top, withIndex(env, index), deadline, '');
}

// Builds `<index>.ic-new` and renames it over `target`. A temporary index that a failed or timed-out build
// leaves behind is removed, so the session's own index and its base are all that is left, as they were.
function buildIndex(index: string, target: string, build: (tmp: string) => void): void {
  const tmp = `${index}.ic-new`;
  rmSync(tmp, { force: true });
  try {
    build(tmp);
  } catch (error) {
    rmSync(tmp, { force: true });
    rmSync(`${tmp}.lock`, { force: true });
    throw error;
  }
  renameSync(tmp, target);
}

export interface Refresh {
  /** False when HEAD was still the base (nothing to do). */
  rebuilt: boolean;
  /** The session's own staged paths carried over onto the new HEAD. */
  kept: string[];
  /** Staged paths that HEAD changed too since the base: HEAD's version is kept; stage them again. */
  restage: string[];
  base: string;
  head: string;
}

// The refresh rule (see the top of this file). `file` is the index to rebuild: the session's index, or the
// `.lock` copy git hands a pre-commit hook under `git commit -a`; the base is read from the session's index.
export function refreshIndex(top: string, index: string, env: NodeJS.ProcessEnv, deadline: Deadline, file: string = index): Refresh {
  const recorded = readIndexBase(index);
  const head = headCommit(top, env, deadline);
  if (recorded === undefined || recorded.base === head) return { rebuilt: false, kept: [], restage: [], base: recorded?.base ?? head, head };
  const baseTree = treeOf(top, env, recorded.base, deadline);
  const own = parseRaw(git(['diff-index', '--cached', '-z', '--no-renames', '--full-index', baseTree], top, withIndex(env, file), deadline));
  const upstream = new Map(parseRaw(git(['diff-tree', '-r', '-z', '--no-renames', '--full-index', baseTree, head], top, env, deadline)).map((change) => [change.path, change]));
  const kept: string[] = [];
  const restage: string[] = [];
  const lines: string[] = [];
  for (const change of own) {
    const theirs = upstream.get(change.path);
    if (theirs && (theirs.dstSha !== change.dstSha || theirs.dstMode !== change.dstMode)) {
      restage.push(change.path);
      continue;
    }
    if (theirs) continue; // HEAD already holds exactly this change
    kept.push(change.path);
    lines.push(indexInfoLine(change));
  }
  buildIndex(index, file, (tmp) => {
    git(['read-tree', head], top, withIndex(env, tmp), deadline);
    if (lines.length > 0) git(['update-index', '-z', '--index-info'], top, withIndex(env, tmp), deadline, `${lines.join('\0')}\0`);
    refreshStat(top, tmp, env, deadline);
  });
  writeIndexBase(index, { ...recorded, base: head });
  return { rebuilt: true, kept, restage, base: recorded.base, head };
}

// The session's index that a git hook was handed: GIT_INDEX_FILE (a `.lock` copy under `commit -a`), when
// it is one of ic's private indexes of this repository; else undefined (the shared index, a partial commit).
export function privateIndexOfHook(top: string, env: NodeJS.ProcessEnv): { index: string; file: string } | undefined {
  const raw = env.GIT_INDEX_FILE;
  if (!raw) return undefined;
  const file = isAbsolute(raw) ? raw : resolve(top, raw);
  const index = file.endsWith('.lock') ? file.slice(0, -'.lock'.length) : file;
  const base = readIndexBase(index);
  return base === undefined ? undefined : { index, file };
}

// After a commit from a private index, the work tree's shared index (the person's, or an agent's without a
// private one) would show that commit as staged changes undoing it. Each committed path whose shared entry
// still equals the parent's takes the new HEAD's entry; a path staged there differently is left alone.
export function carryIntoSharedIndex(top: string, env: NodeJS.ProcessEnv, parent: string, head: string, deadline: Deadline): number {
  const shared: NodeJS.ProcessEnv = { ...env };
  delete shared.GIT_INDEX_FILE;
  const parentTree = treeOf(top, shared, parent, deadline);
  const committed = parseRaw(git(['diff-tree', '-r', '-z', '--no-renames', '--full-index', parentTree, head], top, shared, deadline));
  if (committed.length === 0) return 0;
  const stagedThere = new Set(parseRaw(git(['diff-index', '--cached', '-z', '--no-renames', '--full-index', parentTree], top, shared, deadline)).map((change) => change.path));
  const lines = committed.filter((change) => !stagedThere.has(change.path)).map((change) => indexInfoLine(change));
  if (lines.length > 0) git(['update-index', '-z', '--index-info'], top, shared, deadline, `${lines.join('\0')}\0`);
  return lines.length;
}

function indexInfoLine(change: RawChange): string {
  return change.status === 'D' || /^0+$/.test(change.dstMode) ? `0 ${'0'.repeat(change.dstSha.length)}\t${change.path}` : `${change.dstMode} ${change.dstSha}\t${change.path}`;
}

// After a commit from a private index: its base is the new HEAD (the index now matches it).
export function advanceBase(index: string, head: string): void {
  const recorded = readIndexBase(index);
  if (recorded) writeIndexBase(index, { ...recorded, base: head });
}

// Deletes a session's index and its sidecar (session end); returns whether there was one.
export function deleteIndex(index: string): boolean {
  const had = existsSync(index);
  for (const file of [index, `${index}.base`, `${index}.ic-new`]) rmSync(file, { force: true });
  return had;
}
