import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readlinkSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { NO_DEADLINE, type Deadline } from '../deadline';
import { runGit, runGitText } from './git-process';
import { loosePath, STREAM_BYTES, storeFile, writeBlob } from './git-objects';
import { gitMode, isContent, lstatOrNull, signature, type Repo } from './files';

// Custody keeps every content it records or displaces reachable, so `git gc --prune=now` never takes it:
// each blob is pinned by a ref of ic's own, refs/ic/custody/<UTC day>/<blob id> (a ref may name a blob).
// One loose ref per blob and day, written in-process like git writes one (<ref>.lock created exclusively,
// then renamed): no git process on the hook path, no shared ref to contend for, nothing rewritten as pins
// grow (a tree under one ref would be rewritten whole at every pin). `git gc` packs them into packed-refs,
// which keeps them just as well. The day in the name is the pin's age for `coord sweep` (packed refs keep
// no mtime): a blob pinned again on a later day gets a new ref, so its retention runs from its last use.
// A repository on the reftable backend has no loose refs: there the pins go through one `git update-ref`.

export const PIN_PREFIX = 'refs/ic/custody/';
/** How long a pin lasts after its day, unless a live record still needs its blob (docs/custody-restore.md). */
export const RETENTION_DAYS = 14;
export const RETENTION_MS = RETENTION_DAYS * 86_400_000;

export type KeepRepo = Omit<Repo, 'gitDir'>;

export function pinDay(now: number): string {
  return new Date(now).toISOString().slice(0, 10);
}

export function pinRef(id: string, now: number): string {
  return `${PIN_PREFIX}${pinDay(now)}/${id}`;
}

const BLOB_ID = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

// reftable (git 2.45+) keeps refs in <common dir>/reftable/; loose ref files there would be ignored.
function usesReftable(commonDir: string): boolean {
  return existsSync(join(commonDir, 'reftable'));
}

// Pins each blob for today (nulls and repeats skipped). A blob already pinned today costs one stat. Only a
// loose blob is pinned: a ref to an object git lacks would make `git gc` and `git log --all` fail, and a
// packed one was reachable at the last gc (its pin, if it had one, is kept by sweep while a record needs it).
export function pinBlobs(repo: Pick<KeepRepo, 'commonDir' | 'objectsDir'>, ids: Iterable<string | null | undefined>, now: number, deadline: Deadline = NO_DEADLINE): void {
  const wanted = [...new Set([...ids].filter((id): id is string => typeof id === 'string' && BLOB_ID.test(id)))].filter((id) => existsSync(loosePath(repo.objectsDir, id)));
  if (wanted.length === 0) return;
  if (usesReftable(repo.commonDir)) {
    const lines = wanted.map((id) => `update ${pinRef(id, now)} ${id}\n`).join('');
    runGit(['--git-dir', repo.commonDir, 'update-ref', '--stdin'], { input: lines }, deadline);
    return;
  }
  const missing = wanted.map((id) => ({ id, file: join(repo.commonDir, pinRef(id, now)) })).filter(({ file }) => !existsSync(file));
  if (missing.length > 0) mkdirSync(dirname(missing[0]!.file), { recursive: true }); // one directory: today's
  for (const { id, file } of missing) writeLooseRef(file, id);
}

// As git writes a loose ref: <ref>.lock created exclusively, then renamed over the ref. A lock held by
// another writer means the same value is being written (the name is the content) or that `git pack-refs`
// is pruning a ref it has just packed: either way the pin stands.
function writeLooseRef(file: string, id: string): void {
  const lock = `${file}.lock`;
  let fd: number;
  try {
    fd = openSync(lock, 'wx', 0o644);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return;
    throw error;
  }
  try {
    writeSync(fd, `${id}\n`);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(lock, file);
  } catch (error) {
    rmSync(lock, { force: true });
    throw error;
  }
}

export interface Saved {
  blob: string;
  /** git's mode: 100644, 100755 or 120000 (a symlink, whose content is its target). */
  mode: number;
  /** The file's stat signature when it was read: the same signature later means the same content. */
  stat: string;
}

// Keeps what is at the path now (a file or a symlink) as a pinned blob, before ic overwrites or moves it.
// Undefined when there is nothing there to keep (absent, a directory). Throws when it cannot be kept: the
// caller must then not overwrite it.
export function saveContent(repo: KeepRepo, path: string, now: number, deadline: Deadline = NO_DEADLINE): Saved | undefined {
  const absolute = join(repo.root, path);
  const st = lstatOrNull(absolute);
  if (!isContent(st)) return undefined;
  // A large file is stored by streaming, within the deadline (custody's size policy: git-objects.ts).
  const blob = st.isSymbolicLink()
    ? writeBlob(repo.objectsDir, Buffer.from(readlinkSync(absolute)))
    : st.size > STREAM_BYTES
      ? storeFile(repo.objectsDir, absolute, deadline)
      : writeBlob(repo.objectsDir, readFileSync(absolute));
  pinBlobs(repo, [blob], now, deadline);
  return { blob, mode: gitMode(st), stat: signature(st) };
}

// Done before a restore takes the database's write lock (reading, deflating and fsyncing blobs, or asking
// git for a packed one, there would hold every other hook up): the contents of the files it is about to
// overwrite or move, kept; the contents it will put back, checked present and pinned. A file that changed
// again by the time it is put back, or a record that changed meanwhile, is handled once more under the lock.
export interface Ahead {
  saved: Map<string, Saved>;
  present: Set<string>;
}

export function keepAhead(repo: KeepRepo, plans: readonly { path: string; expected: { blob: string | null } }[], now: number, deadline: Deadline): Ahead {
  const ahead: Ahead = { saved: new Map(), present: new Set() };
  for (const { path, expected } of plans) {
    const kept = saveContent(repo, path, now, deadline);
    if (kept) ahead.saved.set(path, kept);
    if (expected.blob !== null && !ahead.present.has(expected.blob) && blobPresent(repo, expected.blob, deadline)) ahead.present.add(expected.blob);
  }
  pinBlobs(repo, ahead.present, now, deadline); // the contents put back stay kept while their records live
  return ahead;
}

// Whether git still has the blob: loose in-process, else (packed) through `git cat-file -e`, which only a
// restore or an undo ever needs.
export function blobPresent(repo: Pick<KeepRepo, 'commonDir' | 'objectsDir'>, id: string, deadline: Deadline = NO_DEADLINE): boolean {
  if (!BLOB_ID.test(id)) return false;
  if (existsSync(loosePath(repo.objectsDir, id))) return true;
  try {
    return runGitText(['--git-dir', repo.commonDir, 'cat-file', '-t', id], {}, deadline).trim() === 'blob';
  } catch (error) {
    if ((error as { status?: unknown }).status === 128) return false; // git's "not a valid object name"
    throw error;
  }
}

export interface Pin {
  ref: string;
  blob: string;
  day: string;
}

// Every pin of the repository, packed or loose or in a reftable (sweep only: one git process).
export function listPins(repo: Pick<KeepRepo, 'commonDir'>, deadline: Deadline = NO_DEADLINE): Pin[] {
  const text = runGitText(['--git-dir', repo.commonDir, 'for-each-ref', '--format=%(refname) %(objectname)', PIN_PREFIX], {}, deadline);
  const pins: Pin[] = [];
  for (const line of text.split('\n')) {
    const [ref, blob] = line.split(' ');
    const match = ref && blob ? /^refs\/ic\/custody\/(\d{4}-\d{2}-\d{2})\/[0-9a-f]+$/.exec(ref) : null;
    if (match) pins.push({ ref: ref!, blob: blob!, day: match[1]! });
  }
  return pins;
}

// The pins whose day ended more than the retention ago and whose blob no live record needs.
export function expiredPins(pins: readonly Pin[], needed: ReadonlySet<string>, now: number): Pin[] {
  const cutoff = pinDay(now - RETENTION_MS);
  return pins.filter((pin) => pin.day < cutoff && !needed.has(pin.blob));
}

// Deletes pins, loose or packed (sweep only: one git process for all of them).
export function dropPins(repo: Pick<KeepRepo, 'commonDir'>, pins: readonly Pin[], deadline: Deadline = NO_DEADLINE): void {
  if (pins.length === 0) return;
  const lines = pins.map((pin) => `delete ${pin.ref} ${pin.blob}\n`).join('');
  runGit(['--git-dir', repo.commonDir, 'update-ref', '--stdin'], { input: lines }, deadline);
}

// Before a restore puts `expected` back at the path (null: moves the file aside): whether git still has the
// holder's content, and what is there now, kept (detail.saved, detail.saved_mode) so it can be put back.
export function keepBeforeRestore(repo: KeepRepo, path: string, expected: string | null, now: number, deadline: Deadline, ahead: Ahead): { missing: boolean; detail: Record<string, unknown> } {
  if (expected !== null && !ahead.present.has(expected)) {
    if (!blobPresent(repo, expected, deadline)) return { missing: true, detail: {} };
    pinBlobs(repo, [expected], now, deadline); // the content put back stays kept while its record lives
  }
  const early = ahead.saved.get(path);
  const st = lstatOrNull(join(repo.root, path));
  const saved = early !== undefined && st !== null && signature(st) === early.stat ? early : saveContent(repo, path, now, deadline);
  return { missing: false, detail: saved ? { saved: saved.blob, saved_mode: gitModeText(saved.mode) } : {} };
}

// git's spelling of a mode: 100644, 100755, 120000.
export function gitModeText(mode: number): string {
  return mode.toString(8);
}
