import { existingContext, readTransaction, type CoordContext } from '../../coord/context';
import { listLocks } from '../../store/locks';
import { sameLineage } from '../../core/owner';
import { coveredFiles, pathsBelow, repoAt, type Covered, type HeldPattern, type Repo } from '../../store/git/files';
import { latestPaths } from '../../store/custody';
import { matchPath } from '../../core/glob';

// What one shell command's custody works on: the repository its cwd is in, the database, and the files
// held by other owners (and by the writer's own lineage), as of one read of the lock table.
export interface CustodyView {
  repo: Repo;
  ctx: CoordContext;
  scope: string;
  writer: string;
  others: Covered;
  own: Covered;
  now: number;
}

// Undefined outside git (custody keeps contents in git's object store) or when no database exists yet.
export async function openView(cwd: string, writer: string, env: NodeJS.ProcessEnv): Promise<CustodyView | undefined> {
  const ctx = await existingContext(cwd, env, true); // no database: nobody holds anything, and none is created
  const git = ctx?.git;
  if (!ctx || !git) return undefined;
  try {
    const repo = repoAt(git.root, git.commonDir);
    const { others, own, now } = await readTransaction(ctx, async (now) => {
      const locks = await listLocks(ctx.db, { scope: ctx.scope, type: 'file', activeAt: now });
      const theirs: HeldPattern[] = [];
      const mine: HeldPattern[] = [];
      for (const lock of locks) (sameLineage(lock.owner, writer) ? mine : theirs).push({ pattern: lock.pattern, holder: lock.owner, lockId: lock.id, createdAt: lock.created_at });
      const recorded = pathsBelow(await latestPaths(ctx.db, ctx.scope));
      const ownCovered = coveredFiles(repo, mine, recorded, matchPath);
      const otherCovered = coveredFiles(repo, theirs, recorded, matchPath);
      for (const path of ownCovered.files.keys()) otherCovered.files.delete(path); // held by both (shared): the writer's
      return { others: otherCovered, own: ownCovered, now };
    });
    return { repo, ctx, scope: ctx.scope, writer, others, own, now };
  } catch (error) {
    ctx.db.close();
    throw error;
  }
}
