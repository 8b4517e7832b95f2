import { IcError } from '../core/errors';
import { isLiteral, matchPath, unescapeLiteral } from '../core/glob';
import { viewLock } from '../core/lock';
import { findGitInfo } from '../store/discover';
import { getEvent, insertEvent } from '../store/events';
import { listLocks } from '../store/locks';
import { recordLatest } from '../store/custody';
import { sameLineage } from '../core/owner';
import { fileState, repoAt } from '../store/git/files';
import { readBlob } from '../store/git/git-objects';
import { blobPresent, gitModeText, pinBlobs, saveContent, RETENTION_DAYS } from '../store/git/keep';
import { putBack } from '../store/git/put-back';
import { ownScope, readTransaction, writeTransaction, type CoordContext } from './context';

export interface UndoResult {
  /** The `undone` event this undo recorded: undo it in turn with `coord undo` of this id. */
  event: number;
  undid: number;
  path: string;
  /** The blob put back (the undone event's detail.saved) and its git mode. */
  blob: string;
  mode: string;
  /** What was at the path before, kept (null: nothing was there). */
  saved: string | null;
}

// `coord undo EVENT_ID`: the content an event kept (detail.saved: what a restore overwrote or a move-aside
// moved, or what an earlier undo replaced) goes back at the event's path. What is there now is kept first,
// in the new `undone` event's detail.saved, so an undo is undoable. Refused, like an edit, while another
// owner holds the path; the acting owner's own hold makes the content its latest, which no restore undoes.
export async function undo(ctx: CoordContext, input: { eventId: number; owner: string }): Promise<UndoResult> {
  const event = await readTransaction(ctx, async () => getEvent(ctx.db, input.eventId));
  if (event === undefined) throw new IcError('NOT_FOUND', `no event ${input.eventId} (coord events lists them; sweep --older-than may have purged it)`, { event: input.eventId });
  const detail = parseDetail(event.detail);
  const saved = typeof detail.saved === 'string' ? detail.saved : undefined;
  if (saved === undefined || event.pattern === null)
    throw new IcError('INVALID_INPUT', `event ${event.id} (${event.type}) kept no content: nothing to undo (restored, displaced, late_write and undone events with detail.saved can be undone)`, {
      event: event.id,
    });
  if (event.scope !== ctx.scope) throw new IcError('OUTSIDE_SCOPE', `event ${event.id} is of another scope (${event.scope}): run coord undo there`, { event: event.id, scope: event.scope });
  // The call's repository, unless --scope moved the scope into another one.
  const git = ctx.scopeDir === ctx.projectRoot ? ctx.git : findGitInfo(ctx.scopeDir);
  if (!git) throw new IcError('INVALID_INPUT', `${ctx.scopeDir} is not in a git repository: kept contents live in git's object store`);
  const repo = repoAt(git.root, git.commonDir);
  const path = event.pattern;
  const mode = typeof detail.saved_mode === 'string' ? parseInt(detail.saved_mode, 8) : 0o100644;
  if (!blobPresent(repo, saved))
    throw new IcError('NOT_FOUND', `the content event ${event.id} kept (git blob ${saved}) is no longer in git's object store: kept contents last ${RETENTION_DAYS} days (docs/custody-restore.md)`, {
      event: event.id,
      blob: saved,
    });
  const content = readBlob(repo.objectsDir, repo.commonDir, saved);
  return writeTransaction(ctx, ownScope(ctx), async (now) => {
    const covering = (await listLocks(ctx.db, { scope: ctx.scope, type: 'file', activeAt: now })).filter((lock) =>
      isLiteral(lock.pattern) ? unescapeLiteral(lock.pattern) === path : matchPath(lock.pattern, path),
    );
    const others = covering.filter((lock) => !sameLineage(lock.owner, input.owner));
    if (others.length > 0) {
      const holders = [...new Set(others.map((lock) => lock.owner))].join(', ');
      throw new IcError('CONFLICT', `${JSON.stringify(path)} is held by ${holders}: undo would overwrite their file; ask ${holders} to release it, then run coord undo ${event.id} again`, {
        path,
        held: others.map(viewLock),
      });
    }
    const replaced = saveContent(repo, path, now);
    putBack(repo.root, path, content, mode);
    pinBlobs(repo, [saved], now); // still kept from today: the undone event may itself be undone
    const mine = covering.find((lock) => sameLineage(lock.owner, input.owner));
    if (mine) await recordLatest(ctx.db, ctx.scope, { path, owner: mine.owner, source: 'write', recorded_at: now, ...fileState(repo, path, [], false), blob: saved });
    const id = await insertEvent(ctx.db, {
      type: 'undone',
      lock_id: mine?.id ?? null,
      scope: ctx.scope,
      owner: input.owner,
      pattern: path,
      reason: null,
      created_at: now,
      detail: { undid: event.id, blob: saved, mode: gitModeText(mode), ...(replaced ? { saved: replaced.blob, saved_mode: gitModeText(replaced.mode) } : {}) },
    });
    return { event: id, undid: event.id, path, blob: saved, mode: gitModeText(mode), saved: replaced?.blob ?? null };
  });
}

function parseDetail(text: string | null): Record<string, unknown> {
  if (text === null) return {};
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
