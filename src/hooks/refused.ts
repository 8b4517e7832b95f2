import { createContext, readTransaction } from '../coord/context';
import { release } from '../coord/release';
import { listLocks } from '../store/locks';
import { editReason, groupByProject, type EditRequest } from './edit';
import { literalPatterns } from './project-paths';

// A tool call that was refused after ic reserved its file (the person denied permission, the edit failed)
// gives back the locks that very call created. Locks it only renewed carry an earlier call's reason and
// stay. Runs only on those rare events, never on the edit path.
export function releaseRefusedEdit(request: EditRequest & { toolUseId: string }, env: NodeJS.ProcessEnv): number {
  const reason = editReason(request.toolUseId);
  let released = 0;
  for (const group of groupByProject(request)) {
    const patterns = new Set(literalPatterns(group.project, request.cwd, group.paths).patterns.map((p) => p.pattern));
    if (patterns.size === 0) continue;
    const ctx = createContext({ cwd: group.startDir, env, write: false, project: group.project });
    try {
      const ids = readTransaction(ctx, (now) => listLocks(ctx.db, { scope: ctx.scope, owner: request.owner, type: 'file', activeAt: now }))
        .filter((lock) => lock.reason === reason && patterns.has(lock.pattern))
        .map((lock) => lock.id);
      if (ids.length === 0) continue;
      released += release(ctx, { ids, owner: request.owner, all: false, force: false, reason: 'the edit was refused', releaseReason: 'released' }).released.length;
    } finally {
      ctx.db.close();
    }
  }
  return released;
}
