import { insertEvent, type StoredEvent } from '../store/events';
import { newestCommitSince } from '../store/commits';
import { ownScope, readTransaction, writeTransaction, type CoordContext } from './context';

const MAX_PATHS = 200;

// The post-commit hook's `committed` event: other sessions learn of new commits by reading the log
// (`events`, the status line), nothing is broadcast. Long path lists are cut (paths_total says how many).
export async function recordCommit(ctx: CoordContext, commit: { sha: string; owner: string; paths: string[]; subject: string; branch: string | null }): Promise<number> {
  return writeTransaction(ctx, ownScope(ctx), async (now) =>
    insertEvent(ctx.db, {
      type: 'committed',
      lock_id: null,
      scope: ctx.scope,
      owner: commit.owner,
      pattern: null,
      reason: commit.subject.slice(0, 200),
      created_at: now,
      detail: { sha: commit.sha, branch: commit.branch, paths: commit.paths.slice(0, MAX_PATHS), paths_total: commit.paths.length },
    }),
  );
}

// The newest commit by someone else in the last `windowMs`, if any (the status line's "HEAD moved by X").
export async function recentCommitByOther(ctx: CoordContext, isOther: (owner: string) => boolean, windowMs: number): Promise<{ event: StoredEvent; now: number } | undefined> {
  return readTransaction(ctx, async (now) => {
    const event = await newestCommitSince(ctx.db, ctx.scope, now - windowMs, isOther);
    return event ? { event, now } : undefined;
  });
}
