import { writeTransaction } from '../../coord/context';
import { inScopes } from '../../store/connection';
import { latestFor, purgeCommands, purgeEdits, purgeLatest, recordLatest, runningWriters, sameContent, startCommand, type FileState, type LatestRow, type SnapshotRow } from '../../store/custody';
import { ABSENT, existenceProbe, fileState, statMatchesIndex } from '../../store/git/files';
import type { ShellRequest } from './types';
import { openView } from './view';
import { markedWriters, purgeMarkers } from '../../store/markers';
import { refreshDigest } from './digest-refresh';
import { keepIndexBefore, purgeIndexBefore } from './index-before';
import { NO_DEADLINE, type Deadline } from '../../store/deadline';
import { pinBlobs } from '../../store/git/keep';
import { shareBlobs } from './shared-blobs';
import { DAY_MS } from './late-writes';

// Before a shell command: remember the content of every file another owner holds, so the after-command
// hook can put back what the command changed anyway. A file that matches the index needs nothing (the
// index names its blob); any other content is written to git's object store as a blob (once: objects are
// content-addressed). The holder's latest content is seeded from the file when the holder has not
// written it through a hook yet, and refreshed when no other command is running (a person's own edit
// between commands is the holder's).
export async function snapshotBeforeShell(request: ShellRequest, env: NodeJS.ProcessEnv, deadline: Deadline = NO_DEADLINE): Promise<void> {
  const view = await openView(request.cwd, request.owner, env);
  if (!view) return;
  const { repo, ctx, others } = view;
  try {
    if (others.files.size === 0) return;
    const paths = [...others.files.keys()];
    const latest = await latestFor(ctx.db, view.scope, paths);
    const rows: SnapshotRow[] = [];
    const seen: LatestRow[] = [];
    const exists = existenceProbe(repo.root);
    for (const path of paths) {
      const held = others.files.get(path)!;
      const entry = others.tracked.get(path);
      const record = latest.get(path);
      // A glob's tracked file that matches the index needs nothing: the index names its blob. A literal file
      // that exists always gets a row (and a holder record), so the after hook needs no index for it; one
      // that does not exist needs no row (the after hook reads a missing row of an unindexed file as absent).
      if (entry && !record && statMatchesIndex(repo, entry)) continue;
      const state = exists(path) ? fileState(repo, path, [record], true, deadline) : ABSENT;
      if (entry && !record && state.blob === entry.blob) continue;
      if (entry || state.blob !== null) rows.push({ path, holder: held.holder, ...state });
      // What the file holds when no command is open is the holder's newest content, unless the holder recorded
      // something else since: a person's save in an editor after the holder's last tool edit is the holder's.
      // (A file last written before the holder's record, a write the record came after, keeps the record.)
      const stale =
        record === undefined || record.recorded_at < held.createdAt || (!sameContent(record, state) && changedSinceRecord(state, record)) || (record.source === 'seen' && record.stat !== state.stat);
      if (stale) seen.push({ path, owner: held.holder, source: 'seen', recorded_at: 0, ...state });
    }
    keepIndexBefore(repo, view.scope, request.owner, request.callId ?? ''); // a command may change the index too
    // Kept through `git gc --prune=now` while the command runs and its after hook may put them back.
    const blobs = [...rows, ...seen].map((row) => row.blob);
    pinBlobs(repo, blobs, view.now);
    await writeTransaction(ctx, inScopes(view.scope), async (now) => {
      const busy = await runningWriters(ctx.db, view.scope, now - DAY_MS);
      for (const writer of markedWriters(ctx.dbLocation.path, view.scope, now - DAY_MS)) busy.add(writer); // commands the fast path let run
      // The writer's own other open commands count too: a Codex command still running past its yield may have
      // written the file, and taking that as the holder's would leave its late restore nothing to do.
      for (const row of seen) {
        const record = latest.get(row.path);
        // Another command is running: what the file holds now may be that command's write, not the holder's.
        if (record && record.recorded_at >= others.files.get(row.path)!.createdAt && busy.size > 0) continue;
        await recordLatest(ctx.db, view.scope, { ...row, recorded_at: now });
      }
      await startCommand(ctx.db, view.scope, request.owner, request.callId ?? '', now, rows);
      await purgeCommands(ctx.db, now - DAY_MS);
      await purgeLatest(ctx.db, now - DAY_MS);
      await purgeEdits(ctx.db, now - DAY_MS);
      purgeMarkers(ctx.dbLocation.path, now - DAY_MS);
    });
    const seenBlobs = seen.map((row) => row.blob);
    await shareBlobs(ctx, repo, seenBlobs); // on a server, for restores in other clones
    purgeIndexBefore(repo, Date.now() - DAY_MS);
  } finally {
    await refreshDigest(ctx); // so the next command of any session may take the fast path (src/hooks/fast/)
    ctx.db.close();
  }
}

// File times come from a coarse clock, up to a tick behind the system clock that dates records: a save a
// few ms after a record can carry an earlier time (and was undone). A record read from a file (it has a stat)
// gets this much doubt; one of content a tool said it wrote (no stat: the file held something else) none.
const FILE_CLOCK_LAG_MS = 50;

// The file changed after the holder's record, by its mtime or ctime against the record's time (a record made
// in another clone of a server project has that clone's stat, so stats alone cannot tell). Absent: changed.
function changedSinceRecord(state: FileState, record: LatestRow): boolean {
  if (state.blob === null) return true;
  const [, mtime, ctime] = state.stat.split(':').map(Number);
  return Math.max(mtime ?? Infinity, ctime ?? Infinity) > record.recorded_at - (record.stat === '' ? 0 : FILE_CLOCK_LAG_MS);
}
