import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { writeTransaction, type CoordContext } from '../../coord/context';
import { inScopes } from '../../store/connection';
import {
  clearEditsBy,
  commandStart,
  editsFor,
  endCommand,
  latestFor,
  recordLatest,
  runningWriters,
  sameContent,
  snapshotRows,
  type EditRow,
  type FileState,
  type LatestRow,
  type SnapshotRow,
} from '../../store/custody';
import { insertEvent, type EventType } from '../../store/events';
import { sameLineage } from '../../core/owner';
import { ABSENT, fileState, indexState, statMatchesIndex, type Covered, type HeldPattern, type Repo } from '../../store/git/files';
import { NO_DEADLINE, type Deadline } from '../../store/deadline';
import { readIndex, type IndexEntry } from '../../store/git/index-file';
import type { RestoreReport, ShellRequest } from './types';
import { openView, type CustodyView } from './view';
import { DAY_MS, LATE_WATCH_MS, watchLateWrites } from './late-writes';
import { commandForEvent } from './pre-shell';
import { markedWriters, readMarker, removeMarker } from '../../store/markers';
import { refreshDigest } from './digest-refresh';
import { dropIndexBefore, indexChanges } from './index-before';
import { runGit } from '../../store/git/git-process';
import { moveAside, refusalText, writeContent, writtenState, type Refusal } from './safe-write';
import { keepAhead, keepBeforeRestore, pinBlobs } from '../../store/git/keep';
import { fetchSharedBlobs, shareBlobs } from './shared-blobs';

// Without a snapshot, a file whose mtime is this much before the command's start may still be its write
// (coarse file-system clocks, the agent's own timing).
const WINDOW_SLACK_MS = 1_000;

// After a shell command: every file another owner holds that the command changed goes back to the holder's
// latest content, and a file it created under another owner's pattern is moved aside (never lost). The
// writer's own held files are recorded as its latest content. Files nobody holds are never touched.
// `onlyWithSnapshot`: a work tree other than the command's cwd (every-repo.ts) is restored only by a snapshot.
export async function restoreAfterShell(request: ShellRequest, env: NodeJS.ProcessEnv, deadline: Deadline = NO_DEADLINE, options: { onlyWithSnapshot?: boolean } = {}): Promise<RestoreReport> {
  const report: RestoreReport = { restored: [], displaced: [] };
  const view = await openView(request.cwd, request.owner, env);
  if (!view) return report;
  const { repo, ctx } = view;
  const callId = request.callId ?? '';
  let rowLeft = false; // the command's row in custody_commands, until the transaction below ends it
  try {
    // The before hook's snapshot: in the database, or in the marker of a command the fast path let run.
    const recorded = await commandStart(ctx.db, view.scope, request.owner, callId);
    rowLeft = recorded !== undefined;
    const marker = recorded === undefined ? readMarker(ctx.dbLocation.path, view.scope, request.owner, callId) : undefined;
    const started = recorded ?? marker?.started_at;
    const snapshot = recorded !== undefined ? await snapshotRows(ctx.db, view.scope, request.owner, callId) : marker ? new Map(marker.rows.map((row) => [row.path, row])) : undefined;
    if (started === undefined && options.onlyWithSnapshot) return report;
    const indexChanged = snapshot === undefined ? new Map<string, IndexEntry | undefined>() : indexChangesOfHeld(repo, view, request.owner, callId, snapshot);
    const windowStart = started ?? (request.durationMs !== undefined ? view.now - request.durationMs - WINDOW_SLACK_MS : undefined);
    const otherPaths = [...view.others.files.keys()];
    const ownPaths = [...view.own.files.keys()];
    const latest = await latestFor(ctx.db, view.scope, [...otherPaths, ...ownPaths]);
    const busy = otherPaths.length > 0 ? await runningWriters(ctx.db, view.scope, view.now - DAY_MS) : new Set<string>();
    if (otherPaths.length > 0) for (const writer of markedWriters(ctx.dbLocation.path, view.scope, view.now - DAY_MS)) busy.add(writer);

    // Without a snapshot, a held file with no holder record is judged against the index (read only then).
    const unrecorded = snapshot === undefined ? otherPaths.filter((path) => !latest.has(path) && !view.others.tracked.has(path)) : [];
    if (unrecorded.length > 0) {
      const wanted = new Set(unrecorded);
      for (const entry of readIndex(join(repo.gitDir, 'index'), (path) => wanted.has(path))) view.others.tracked.set(entry.path, entry);
    }
    const plans: Plan[] = [];
    for (const path of otherPaths) {
      const plan = planFile(repo, path, view.others, snapshot, latest.get(path), windowStart, deadline);
      if (!plan) continue;
      if ([...busy].some((writer) => writer !== request.owner && sameLineage(writer, plan.held.holder))) (report.left ??= []).push({ path, holder: plan.held.holder });
      else plans.push(plan);
    }
    const ownWrites = ownChanges(repo, view.own, latest, deadline);
    if (plans.length === 0 && ownWrites.length === 0 && started === undefined) return report;
    // The holder's edit hook has marked the file and its write is not recorded yet: the write may be on disk
    // with its record still to come. Wait a moment for that record before deciding.
    const planned = plans.map((plan) => plan.path);
    const marks = await editsFor(ctx.db, view.scope, planned);
    const pending = plans.filter((plan) => editInFlight(plan, marks.get(plan.path), view.now));
    if (pending.length > 0) await awaitRecords(ctx, view.scope, pending, deadline);

    const ownBlobs = ownWrites.map((row) => row.blob);
    const putBack = plans.map((plan) => plan.expected.blob);
    await fetchSharedBlobs(ctx, repo, putBack, deadline); // on a server, what another clone recorded
    const ahead = keepAhead(repo, plans, view.now, deadline); // what the command left, kept before the write lock (src/store/git/keep.ts)
    pinBlobs(repo, ownBlobs, view.now, deadline); // the writer's new latest contents, kept while they may be put back
    const moved = join(repo.commonDir, 'ic', 'displaced', new Date(view.now).toISOString().replace(/:/g, '-')); // one directory per after hook that moved something
    const indexBack: { path: string; entry: IndexEntry | undefined }[] = []; // index entries to put back with their files
    await writeTransaction(ctx, inScopes(view.scope), async (now) => {
      // Decided again under the write lock, against the holder's record and edit marks as they are now: a
      // holder's record written meanwhile wins, and no record or mark can be written while a file is put back.
      const fresh = await latestFor(ctx.db, view.scope, planned);
      const editing = await editsFor(ctx.db, view.scope, planned);
      for (const first of plans) {
        const record = fresh.get(first.path);
        const plan = planFile(repo, first.path, view.others, snapshot, record, windowStart, deadline);
        if (!plan) continue;
        // An edit of the holder is still under way: what the file holds may be the holder's own write, and
        // putting back the older record would undo it. Left as it is (a foreign write in it stays).
        if (editInFlight(plan, editing.get(plan.path), now)) {
          (report.editing ??= []).push({ path: plan.path, holder: plan.held.holder });
          continue;
        }
        const detail: Record<string, unknown> = {
          holder: plan.held.holder,
          command: request.label ?? request.command,
          ...(request.callId ? { call_id: request.callId } : {}),
          blob: plan.expected.blob,
        };
        // Every outcome for this file is one event: the writer's, on the holder's lock, naming the path.
        const recordEvent = (type: EventType, details: Record<string, unknown>, reason: string | null = null) =>
          insertEvent(ctx.db, { type, lock_id: plan.held.lockId, scope: view.scope, owner: request.owner, pattern: plan.path, reason, created_at: now, detail: details });
        // No snapshot and no record + timing to show the command changed it: a person's own work (saved
        // outside any hook) may be what the file holds now, so nothing is written (docs/custody-restore.md).
        if (!plan.verified) {
          (report.unverified ??= []).push({ path: plan.path, holder: plan.held.holder });
          await recordEvent('unverified', detail);
          continue;
        }
        // What the command left is kept (detail.saved) before it is overwritten or moved; a holder's content git
        // no longer has leaves the file as it is, said in an event and to the writer (src/store/git/keep.ts).
        const kept = keepBeforeRestore(repo, plan.path, plan.expected.blob, now, deadline, ahead);
        if (kept.missing) {
          (report.missing ??= []).push({ path: plan.path, holder: plan.held.holder, blob: plan.expected.blob! });
          await recordEvent('not_restored', { ...detail, why: 'content_missing' });
          continue;
        }
        Object.assign(detail, kept.detail);
        let refusal: Refusal | undefined;
        if (plan.expected.blob === null) {
          const movedTo = join(moved, plan.path);
          refusal = moveAside(repo, plan.path, movedTo);
          if (!refusal) {
            detail.moved_to = movedTo;
            report.displaced.push({ path: plan.path, holder: plan.held.holder, movedTo });
          }
        } else {
          refusal = writeContent(repo, plan.path, plan.expected, deadline);
          if (!refusal) {
            report.restored.push({ path: plan.path, holder: plan.held.holder });
            // The restored file has a new stat: the record keeps its blob and learns the stat, so the next check needs no read.
            const state = writtenState(repo, plan.path, plan.expected);
            await recordLatest(ctx.db, view.scope, { path: plan.path, owner: record?.owner ?? plan.held.holder, source: record?.source ?? 'seen', recorded_at: record?.recorded_at ?? now, ...state });
          }
        }
        if (!refusal && indexChanged.has(plan.path)) {
          indexBack.push({ path: plan.path, entry: indexChanged.get(plan.path) });
          detail.index_entry = indexChanged.get(plan.path)?.blob ?? null; // the entry put back with the file (null: removed)
        }
        if (refusal) {
          const text = refusalText(refusal);
          (report.refused ??= []).push({ path: plan.path, holder: plan.held.holder, reason: refusal.reason, at: refusal.at, text });
          await recordEvent('restore_refused', { ...detail, at: refusal.at }, refusal.reason);
          continue;
        }
        const eventId = await recordEvent(plan.expected.blob === null ? 'displaced' : 'restored', detail);
        if (kept.detail.saved) (report.saved ??= []).push({ path: plan.path, event: eventId });
      }
      for (const row of ownWrites) await recordLatest(ctx.db, view.scope, { ...row, recorded_at: now });
      if (recorded !== undefined) await endCommand(ctx.db, view.scope, request.owner, callId);
      if (marker !== undefined) removeMarker(ctx.dbLocation.path, view.scope, request.owner, callId);
      await clearEditsBy(ctx.db, view.scope, request.owner); // the writer's own command is over: its writes are recorded above
    });
    rowLeft = false;
    await shareBlobs(ctx, repo, ownBlobs); // on a server, for restores in other clones
    if (indexBack.length > 0) restoreIndexEntries(repo, indexBack, report, deadline);
    return report;
  } finally {
    dropIndexBefore(repo, view.scope, request.owner, callId);
    if (rowLeft) await endCommandAfterFailure(ctx, view.scope, request.owner, callId, deadline);
    // The command is over whatever happened here (the hook's budget spent, the database busy): a marker
    // left behind would make its writer look busy, holding back restores of its lineage's files, for a day.
    try {
      removeMarker(ctx.dbLocation.path, view.scope, request.owner, callId);
    } catch {
      // an unreadable <db>-running/: purgeMarkers' day is then the bound
    }
    if (request.lingers) await watchQuietly(view, request);
    await refreshDigest(ctx); // so the next command of any session may take the fast path (src/hooks/fast/)
    ctx.db.close();
  }
}

// The held files whose index entry the command changed (`git checkout REV -- path`), with their entries
// before it (undefined: none), to put back with the files. A glob's file that matched the index has no
// snapshot row: its state before is that old entry (absent when there was none), put into the snapshot.
function indexChangesOfHeld(repo: Repo, view: { scope: string; others: Covered }, writer: string, callId: string, snapshot: Map<string, SnapshotRow>): Map<string, IndexEntry | undefined> {
  const changed = indexChanges(repo, view.scope, writer, callId, new Set(view.others.files.keys()));
  for (const [path, entry] of changed) if (!snapshot.has(path)) snapshot.set(path, { path, holder: view.others.files.get(path)!.holder, ...(entry ? indexState(entry) : ABSENT) });
  return changed;
}

// The index entries of files put back, as they were before the command (one git process, NUL-separated
// paths: nothing reaches a shell). A failure (the index locked by another git) leaves the file restored and
// says so.
function restoreIndexEntries(repo: Repo, entries: readonly { path: string; entry: IndexEntry | undefined }[], report: RestoreReport, deadline: Deadline): void {
  const input = entries.map(({ path, entry }) => (entry ? `${entry.mode.toString(8)} ${entry.blob}\t${path}\0` : `0 ${'0'.repeat(40)}\t${path}\0`)).join('');
  try {
    // The index read above, named outright: a GIT_INDEX_FILE in the hook's environment (a private index) is not it.
    const env = { ...process.env, GIT_DIR: repo.gitDir, GIT_WORK_TREE: repo.root, GIT_INDEX_FILE: join(repo.gitDir, 'index') };
    runGit(['update-index', '-z', '--index-info'], { input, env, cwd: repo.root }, deadline);
  } catch (error) {
    const message = (error instanceof Error ? error.message : String(error)).split('\n').find((line) => line.trim() !== '' && !line.startsWith('Command failed')) ?? 'git update-index failed';
    for (const { path } of entries) (report.indexLeft ??= []).push({ path, error: message.trim() });
  }
}

// A command that may have left a job running stays open for custody: its late writes are looked for at
// the next hook of any session (late-writes.ts). A failure here loses only that watch.
async function watchQuietly(view: CustodyView, request: ShellRequest): Promise<void> {
  try {
    const now = view.now;
    await watchLateWrites(view.ctx, view.repo, view.others, {
      writer: request.owner,
      call_id: request.callId ?? '',
      command: request.label ?? commandForEvent(request.command),
      since: now,
      until: now + LATE_WATCH_MS,
      ...(request.lingers?.pgid !== undefined ? { pgid: request.lingers.pgid } : {}),
    });
  } catch {
    // the restore's own outcome stands
  }
}

// The restore failed (a blob it could not read, the budget spent): the command is over all the same, and a
// row left in custody_commands would make its writer look busy to every restore of its lineage's files for
// a day. One short try, within what is left of the budget; a database too busy for it keeps the row.
async function endCommandAfterFailure(ctx: CoordContext, scope: string, writer: string, callId: string, deadline: Deadline): Promise<void> {
  try {
    ctx.db.setLockWait(Math.min(200, deadline.leftMs()));
    await writeTransaction(ctx, inScopes(scope), async () => endCommand(ctx.db, scope, writer, callId));
  } catch {
    // the failure that brought us here is what the hook reports
  }
}

const IN_FLIGHT_WAIT_MS = 3_000;
// An edit mark older than this is a tool call that never reported back (refused, failed, killed); a
// permission prompt between the edit hook and the write may take minutes.
const EDIT_STALE_MS = 15 * 60_000;

// The holder's lineage marked the file in its edit hook (before its tool writes) and has not recorded the
// write yet. Only the holder's own edit hooks make the mark: a lock renewal (liveness) says nothing here.
function editInFlight(plan: Plan, mark: EditRow | undefined, now: number): boolean {
  return mark !== undefined && sameLineage(mark.owner, plan.held.holder) && mark.started_at >= now - EDIT_STALE_MS;
}

// Polls the edit marks of the pending files until each is cleared (its write recorded) or the wait is over.
async function awaitRecords(ctx: CoordContext, scope: string, pending: readonly Plan[], deadline: Deadline): Promise<void> {
  const giveUpAt = Date.now() + Math.min(IN_FLIGHT_WAIT_MS, deadline.leftMs());
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  const paths = pending.map((plan) => plan.path);
  while (Date.now() < giveUpAt) {
    if ((await editsFor(ctx.db, scope, paths)).size === 0) return;
    Atomics.wait(sleeper, 0, 0, 50);
  }
}

interface Plan {
  path: string;
  held: HeldPattern;
  expected: FileState;
  /** A snapshot shows the command changed the file, or (no snapshot) the holder's record and the command's
   * own timing do; otherwise the file is only reported (`unverified`), never written. */
  verified: boolean;
}

// What to do with one file another owner holds: undefined when the command did not change it, or when it
// already holds its holder's latest content; else the content to put back (blob null: move it aside).
function planFile(
  repo: Repo,
  path: string,
  others: Covered,
  snapshot: Map<string, SnapshotRow> | undefined,
  record: LatestRow | undefined,
  windowStart: number | undefined,
  deadline: Deadline = NO_DEADLINE,
): Plan | undefined {
  const held = others.files.get(path)!;
  const entry = others.tracked.get(path);
  const clean = entry && statMatchesIndex(repo, entry) ? indexState(entry) : undefined;
  // Before the command: the snapshot's row; a glob's file the snapshot left out matched the index, or did not exist.
  const before = snapshot === undefined ? undefined : (snapshot.get(path) ?? (entry ? indexState(entry) : ABSENT));
  const valid = record && record.recorded_at >= held.createdAt ? record : undefined;
  const now = clean ?? fileState(repo, path, [before, valid], false, deadline);
  if (before !== undefined && sameContent(now, before)) return undefined; // the command did not change it
  if (before === undefined && !changedInWindow(repo, path, windowStart)) return undefined;
  // Decided against the holder's latest content; else what the file was before; else the index; else, for a
  // file git does not know that appeared during the command, absence (it is moved aside).
  const expected = valid ?? before ?? (entry ? indexState(entry) : windowStart !== undefined ? ABSENT : undefined);
  if (expected === undefined || sameContent(now, expected)) return undefined;
  return { path, held, expected, verified: before !== undefined || (valid !== undefined && windowStart !== undefined) };
}

// Without a snapshot: a file changed (or removed) during the command, as far as its times tell. Unknown
// start: every difference counts (the index or the holder's record is then the authority).
function changedInWindow(repo: Repo, path: string, windowStart: number | undefined): boolean {
  if (windowStart === undefined) return true;
  try {
    const st = lstatSync(join(repo.root, path));
    return Math.max(st.mtimeMs, st.ctimeMs) >= windowStart;
  } catch {
    return true; // removed: the holder's record or the index says whether it should exist
  }
}

// The writer's own held files whose content differs from its record: its own shell wrote them, so they
// become its latest content (stored as blobs).
function ownChanges(repo: Repo, own: Covered, latest: Map<string, LatestRow>, deadline: Deadline): Omit<LatestRow, 'recorded_at'>[] {
  const rows: Omit<LatestRow, 'recorded_at'>[] = [];
  for (const [path, held] of own.files) {
    const record = latest.get(path);
    const entry = own.tracked.get(path);
    if (!record && entry && statMatchesIndex(repo, entry)) continue;
    const state = fileState(repo, path, [record], true, deadline);
    if (record ? sameContent(state, record) && record.stat === state.stat : state.blob === null || (entry !== undefined && state.blob === entry.blob)) continue;
    rows.push({ path, owner: held.holder, source: 'write', ...state });
  }
  return rows;
}
