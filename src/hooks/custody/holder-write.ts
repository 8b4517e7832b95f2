import { createContext, ownScope, writeTransaction } from '../../coord/context';
import { listLocks } from '../../store/locks';
import { clearEdits, recordLatest, type LatestRow } from '../../store/custody';
import { isLiteral, matchPath, unescapeLiteral } from '../../core/glob';
import { groupByProject } from '../edit';
import { projectRelative } from '../../coord/paths';
import { sameLineage } from '../../core/owner';
import { fileState, repoAt } from '../../store/git/files';
import { writeBlob } from '../../store/git/git-objects';
import { pinBlobs } from '../../store/git/keep';
import { shareBlobs } from './shared-blobs';
import { isAbsolute, join, normalize } from 'node:path';

// After the holder's own write (its edit tool, an MCP tool that writes, its own shell command): the file's
// new content is stored as a blob and becomes the holder's latest, which a restore puts back, so the
// holder's own writes are never undone. Only files a lock of the owner's lineage covers are recorded: an
// edit of a file nobody holds has nothing to protect, and one another owner holds is not the holder's.
// `written`: the whole content the tool wrote, when its input says (Claude's Write): recorded as given, so a
// write by someone else between the tool and this hook is not taken for the holder's.
export async function recordHolderWrite(owner: string, paths: readonly string[], cwd: string, env: NodeJS.ProcessEnv, written?: { path: string; content: string }): Promise<void> {
  for (const group of groupByProject({ cwd, paths: [...paths] }, env)) {
    const git = group.workspace.git;
    if (!git) continue;
    const repo = repoAt(git.root, git.commonDir);
    const ctx = await createContext({ workspace: group.workspace, env, write: true });
    try {
      const recorded = await writeTransaction(ctx, ownScope(ctx), async (now) => {
        const mine = (await listLocks(ctx.db, { scope: ctx.scope, type: 'file', activeAt: now })).filter((lock) => sameLineage(lock.owner, owner));
        if (mine.length === 0) return undefined;
        const rows: LatestRow[] = [];
        for (const path of group.paths) {
          const rel = projectRelative(ctx.scopeDir, cwd, path);
          if (rel === undefined) continue;
          const covered = mine.some((lock) => (isLiteral(lock.pattern) ? unescapeLiteral(lock.pattern) === rel : matchPath(lock.pattern, rel)));
          if (!covered) continue;
          const state = fileState(repo, rel, [], true);
          const given = written && normalize(isAbsolute(written.path) ? written.path : join(cwd, written.path)) === normalize(isAbsolute(path) ? path : join(cwd, path)) ? written.content : undefined;
          const blob = given === undefined || state.blob === null ? state.blob : writeBlob(repo.objectsDir, Buffer.from(given, 'utf8'));
          rows.push({ path: rel, owner, source: 'write', recorded_at: now, ...state, blob, stat: blob === state.blob ? state.stat : '' });
        }
        for (const row of rows) await recordLatest(ctx.db, ctx.scope, row);
        const recordedPaths = rows.map((row) => row.path);
        await clearEdits(ctx.db, ctx.scope, recordedPaths); // the edit is over: its write is the record now
        return { rows, now };
      });
      // The holder's contents, kept through `git gc --prune=now` while a restore may need them (after the
      // write lock: in-process ref files, src/store/git/keep.ts).
      if (recorded) {
        const blobs = recorded.rows.map((row) => row.blob);
        pinBlobs(repo, blobs, recorded.now);
        await shareBlobs(ctx, repo, blobs); // for restores in other clones on a server
      }
    } finally {
      ctx.db.close();
    }
  }
}
