import { linkSync, mkdirSync, unlinkSync } from 'node:fs';
import { removeStale } from '../../store/stale-files';
import { join } from 'node:path';
import { fnv64 } from '../../store/custody-digest';
import { lstatOrNull, type Repo } from '../../store/git/files';
import { readIndex, type IndexEntry } from '../../store/git/index-file';

// The index as it was before a shell command, for the files of other owners' globs that matched it (the
// snapshot has no row for those: the index names their blob). A command that changes the index too
// (`git checkout REV -- path`, `git restore --staged --worktree --source REV path`) would otherwise leave
// the index naming its own content, and the file would look clean. git replaces its index by renaming a new
// file over it (index.lock), never in place, so a hard link to the index before the command keeps that
// version for the price of one link: <git dir>/ic/index-before/<command>.

function linkPath(repo: Repo, scope: string, writer: string, callId: string): string {
  return join(repo.gitDir, 'ic', 'index-before', fnv64(`${scope}\0${writer}\0${callId}`));
}

// Before the command: links the index (nothing when there is none, or the file system has no hard links).
export function keepIndexBefore(repo: Repo, scope: string, writer: string, callId: string): void {
  const link = linkPath(repo, scope, writer, callId);
  dropIndexBefore(repo, scope, writer, callId); // a command with the same call id before (a retried hook)
  try {
    linkSync(join(repo.gitDir, 'index'), link);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return; // no hard links here: index changes go unseen
    if (lstatOrNull(join(repo.gitDir, 'index')) === null) return; // no index yet
    mkdirSync(join(repo.gitDir, 'ic', 'index-before'), { recursive: true });
    try {
      linkSync(join(repo.gitDir, 'index'), link);
    } catch {
      // as above
    }
  }
}

// Whether the index was replaced since the command began (git rewrote it). One stat of each.
export function indexReplaced(repo: Repo, scope: string, writer: string, callId: string): boolean {
  const before = lstatOrNull(linkPath(repo, scope, writer, callId));
  if (before === null) return false;
  const now = lstatOrNull(join(repo.gitDir, 'index'));
  return now === null || now.ino !== before.ino;
}

// The entries the index had before the command for `paths` (a path it did not have maps to undefined), when
// the index was replaced since; an empty map when it was not (or nothing was kept).
export function indexBefore(repo: Repo, scope: string, writer: string, callId: string, paths: ReadonlySet<string>): Map<string, IndexEntry | undefined> {
  const found = new Map<string, IndexEntry | undefined>();
  if (paths.size === 0 || !indexReplaced(repo, scope, writer, callId)) return found;
  for (const path of paths) found.set(path, undefined);
  for (const entry of readIndex(linkPath(repo, scope, writer, callId), (path) => paths.has(path))) found.set(entry.path, entry);
  return found;
}

// Those of `paths` whose index entry the command changed (the index replaced, and the entry differs), with
// their entries before it (undefined: none).
export function indexChanges(repo: Repo, scope: string, writer: string, callId: string, paths: ReadonlySet<string>): Map<string, IndexEntry | undefined> {
  const old = indexBefore(repo, scope, writer, callId, paths);
  if (old.size === 0) return old;
  const now = new Map(readIndex(join(repo.gitDir, 'index'), (path) => old.has(path)).map((entry) => [entry.path, entry]));
  for (const [path, entry] of old) if (entry?.blob === now.get(path)?.blob && entry?.mode === now.get(path)?.mode) old.delete(path);
  return old;
}

export function dropIndexBefore(repo: Repo, scope: string, writer: string, callId: string): void {
  try {
    unlinkSync(linkPath(repo, scope, writer, callId));
  } catch {
    // none kept
  }
}

// Links of commands whose after hook never came (killed, denied): removed after a day.
export function purgeIndexBefore(repo: Repo, before: number): void {
  removeStale(join(repo.gitDir, 'ic', 'index-before'), before);
}
