import { existsSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { shellQuote } from '../../core/shell';
import { createContext, writeTransaction, type CoordContext, type Workspace } from '../../coord/context';
import { EVERYTHING } from '../../store/connection';
import { editsFor, latestFor, runningWriters, sameContent } from '../../store/custody';
import { markedWriters } from '../../store/markers';
import { findGitInfo, isServerDb } from '../../store/discover';
import { insertEvent } from '../../store/events';
import { sameLineage } from '../../core/owner';
import { readRegularFile } from '../../store/regular-file';
import { unlinkQuietly } from '../../store/custody-digest';
import { lateFile } from '../fast/reach';
import { fileState, inState, lstatOrNull, repoAt, type Covered, type Repo } from '../../store/git/files';
import { gitModeText, pinBlobs } from '../../store/git/keep';

// Late writes (issue #34, item 5): a command that leaves a job behind (`(sleep 2; echo x > f) &`, nohup, a
// command the client moved to the background at its timeout) may write a held file after its after hook.
// That command stays open for custody: its after hook leaves a watch (the state of every file other owners
// hold, as the hook left them) in `<db>-late.json`, and the next hook of any session in the database looks
// at those files by stat. A watched file whose content changed since — and is neither what the watch
// already had nor the holder's own recorded content — was written late: ic cannot tell that write from a
// person's save in an editor, so it does not put it back; it records a `late_write` event naming the file,
// the writer, the holder's content before (`detail.blob`, kept in git's object store) and the content found
// (`detail.found`), both pinned (keep.ts), and tells the holder's model and the writer's at their next hook;
// `coord undo EVENT_ID` puts the holder's content back (`detail.saved`).

export interface LateWatch {
  scope: string;
  /** The work tree the paths are relative to. */
  root: string;
  writer: string;
  call_id: string;
  command: string;
  since: number;
  /** The watch ends at this time, or earlier once the process group below is gone. */
  until: number;
  /** The process group the client says the command left running (Claude's `leftRunningPgid`), when known. */
  pgid?: number;
  /** [path, holder, blob, mode, stat, blob before a late write reported]: each held file as last seen. */
  rows: [string, string, string | null, number, string, (string | null)?][];
}

export interface LateNotice {
  /** The owner (with its lineage) to tell. */
  to: string;
  text: string;
  at: number;
}

interface LateFile {
  v: 1;
  watches: LateWatch[];
  notices: LateNotice[];
}

// How long a command's job is watched when the client does not say whether it is still running.
export const LATE_WATCH_MS = 30 * 60_000;
export const DAY_MS = 24 * 3_600_000;

// The after hook of a command that may have left a job running: watch what other owners hold in its work tree.
export async function watchLateWrites(ctx: CoordContext, repo: Repo, others: Covered, watch: Omit<LateWatch, 'rows' | 'root' | 'scope'>): Promise<void> {
  if (isServerDb(ctx.dbLocation) || others.files.size === 0) return;
  const paths = [...others.files.keys()];
  const latest = await latestFor(ctx.db, ctx.scope, paths);
  const rows: LateWatch['rows'] = paths.map((path) => {
    const state = fileState(repo, path, [latest.get(path)], true); // stored: the holder's content stays recoverable
    return [path, others.files.get(path)!.holder, state.blob, state.mode, state.stat];
  });
  const blobs = rows.map((row) => row[2]);
  pinBlobs(repo, blobs, watch.since);
  await writeTransaction(ctx, EVERYTHING, async () => {
    const file = readLate(ctx.dbLocation.path);
    file.watches = file.watches.filter((w) => !(w.scope === ctx.scope && w.writer === watch.writer && w.call_id === watch.call_id));
    file.watches.push({ ...watch, scope: ctx.scope, root: repo.root, rows });
    writeLate(ctx.dbLocation.path, file);
  });
}

// At any agent hook: looks at every watched file (a stat each), records what was written late, and returns
// what this session's model is to be told (the notices for its lineage), if the hook can carry it. In the
// session's workspace, as the hook's session step found it.
export async function noticeLateWrites(workspace: Workspace, owner: string, env: NodeJS.ProcessEnv, tell: boolean): Promise<string | undefined> {
  if (!workspace.git || isServerDb(workspace.db) || !existsSync(lateFile(workspace.db.path))) return undefined;
  const ctx = await createContext({ workspace, env, write: true });
  try {
    return await writeTransaction(ctx, EVERYTHING, async (now) => {
      const file = readLate(ctx.dbLocation.path);
      file.watches = file.watches.filter((watch) => watch.until > now && processGroupAlive(watch.pgid));
      for (const watch of file.watches) await lookAt(ctx, watch, file, now);
      // A watch ends when its time is up: one more look above caught what it wrote until then.
      const told = tell ? file.notices.filter((notice) => sameLineage(notice.to, owner)) : [];
      file.notices = file.notices.filter((notice) => !told.includes(notice) && notice.at > now - DAY_MS); // a notice its session never came back for is dropped after a day
      writeLate(ctx.dbLocation.path, file);
      return told.length === 0 ? undefined : told.map((notice) => notice.text).join('\n');
    });
  } finally {
    ctx.db.close();
  }
}

// A notice for an owner's model, handed over at its next hook that can carry one (noticeLateWrites).
export async function tellLater(ctx: CoordContext, to: string, text: string): Promise<void> {
  if (isServerDb(ctx.dbLocation)) return;
  await writeTransaction(ctx, EVERYTHING, async (now) => {
    const file = readLate(ctx.dbLocation.path);
    file.notices.push({ to, text, at: now });
    writeLate(ctx.dbLocation.path, file);
  });
}

async function lookAt(ctx: CoordContext, watch: LateWatch, file: LateFile, now: number): Promise<void> {
  const git = findGitInfo(watch.root);
  if (!git || git.root !== watch.root) return;
  const repo = repoAt(git.root, git.commonDir);
  const changed = watch.rows.filter(([path, , blob, mode, stat]) => !inState(lstatOrNull(join(repo.root, path)), { blob, mode, stat }));
  if (changed.length === 0) return;
  const paths = changed.map((row) => row[0]);
  const latest = await latestFor(ctx.db, watch.scope, paths);
  const editing = await editsFor(ctx.db, watch.scope, paths);
  const running = await runningWriters(ctx.db, watch.scope, now - DAY_MS);
  for (const writer of markedWriters(ctx.dbLocation.path, watch.scope, now - DAY_MS)) running.add(writer);
  for (const row of changed) {
    const [path, holder, blob, mode] = row;
    // The holder's own command or edit is under way: the change may be its own, recorded when it ends.
    // Looked at again at a later hook.
    const mark = editing.get(path);
    if ((mark && sameLineage(mark.owner, holder)) || [...running].some((writer) => sameLineage(writer, holder))) continue;
    const record = latest.get(path);
    const found = fileState(repo, path, [record], true); // stored: the late content stays recoverable too
    pinBlobs(repo, [blob, found.blob], now);
    row[2] = found.blob;
    row[3] = found.mode;
    row[4] = found.stat;
    if (sameContent(found, { blob, mode, stat: '' })) continue; // touched, same content (a restore, a rewrite)
    if (row.length > 5 && found.blob === row[5]) continue; // the holder's content put back (the way the notice gives)
    if (record && record.source === 'write' && record.recorded_at > watch.since && sameContent(found, record)) continue; // the holder's own, recorded by its hook
    const id = await insertEvent(ctx.db, {
      type: 'late_write',
      lock_id: null,
      scope: watch.scope,
      owner: watch.writer,
      pattern: path,
      reason: null,
      created_at: now,
      // saved: what `coord undo` puts back (the holder's content before the late write).
      detail: {
        holder,
        command: watch.command,
        ...(watch.call_id ? { call_id: watch.call_id } : {}),
        blob,
        found: found.blob,
        ...(blob !== null ? { saved: blob, saved_mode: gitModeText(mode) } : {}),
      },
    });
    row[5] = blob;
    file.notices.push({ to: holder, text: holderNotice(path, holder, watch, blob, repo.root, id), at: now });
    file.notices.push({ to: watch.writer, text: writerNotice(path, holder, watch, id), at: now });
  }
}

// One line per fact; the last one is the way back.
function holderNotice(path: string, holder: string, watch: LateWatch, blob: string | null, root: string, id: number): string {
  const recover =
    blob === null
      ? `Before it the file did not exist; the content found is kept in git's object store (event ${id}, detail.found).`
      : `Your content before it is kept: \`ic coord undo ${id}\` (run in ${shellQuote(root)}) puts it back, and keeps what is there now.`;
  return [
    `ic: ${JSON.stringify(path)}, which you (${holder}) hold, was changed after ${watch.writer}'s shell command had ended (a job it left running: ${JSON.stringify(watch.command.slice(0, 120))}).`,
    `ic did not put it back: such a write cannot be told from a save in an editor. Check the file before you go on.`,
    recover,
  ].join('\n');
}

function writerNotice(path: string, holder: string, watch: LateWatch, id: number): string {
  return [
    `ic: a job your shell command left running (${JSON.stringify(watch.command.slice(0, 120))}) changed ${JSON.stringify(path)} after the command ended; ${holder} holds that file and has been told (event ${id}).`,
    `Do not change files other agents hold, in the background either: stop that job if it is still running.`,
  ].join('\n');
}

// A process group the client named is alive while a signal 0 to it finds a member (EPERM: alive, not ours).
function processGroupAlive(pgid: number | undefined): boolean {
  if (pgid === undefined || !Number.isInteger(pgid) || pgid <= 1) return true;
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readLate(dbPath: string): LateFile {
  try {
    const parsed = JSON.parse(readRegularFile(lateFile(dbPath)) ?? 'null') as LateFile | null;
    if (parsed && parsed.v === 1 && Array.isArray(parsed.watches) && Array.isArray(parsed.notices)) return parsed;
  } catch {
    // unreadable: started afresh (what it watched is lost, never a held file)
  }
  return { v: 1, watches: [], notices: [] };
}

// Written beside the database and renamed over, under the database's write lock; removed once empty, so the
// fast path sees at one stat that nothing is pending.
function writeLate(dbPath: string, file: LateFile): void {
  const path = lateFile(dbPath);
  if (file.watches.length === 0 && file.notices.length === 0) {
    unlinkQuietly(path);
    return;
  }
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(file));
  renameSync(tmp, path);
}
