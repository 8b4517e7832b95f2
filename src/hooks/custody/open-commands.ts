import { existsSync } from 'node:fs';
import { createContext, resolveProject, writeTransaction } from '../../coord/context';
import { endCommandsOf } from '../../store/custody';
import { findGitInfo, isServerDb, locateDb } from '../../store/discover';
import { listMarkers, removeMarker } from '../fast/markers';

// A shell command is open from its before hook until its after hook. One whose after hook never comes (the
// person denied or interrupted it at the permission prompt, the client gave up on it) would otherwise count
// as running for a day: while it does, every other agent's write to its writer's held files is "left", and
// no holder content is refreshed. A foreground command cannot outlive its session's turn, and a command the
// client moved to the background has had its after hook already, so the turn's end (Stop) and the next
// prompt (UserPromptSubmit) end every command the session itself still has open. Subagents' commands are
// left to their own lineage (SubagentStop ends a subagent's turn).
export function endTurnCommands(dir: string, owner: string, env: NodeJS.ProcessEnv): number {
  const git = findGitInfo(dir);
  if (!git) return 0;
  const project = resolveProject(dir);
  const location = locateDb({ env, cwd: dir, projectDb: project.db });
  if (!isServerDb(location) && !existsSync(location.path)) return 0;
  const ctx = createContext({ cwd: dir, env, write: true, project });
  try {
    // Its commands in any scope, named by their writer: no grant decides by them, so no scope is locked.
    const ended = writeTransaction(ctx, { scopes: [], owners: [owner] }, () => endCommandsOf(ctx.db, [owner]));
    let markers = 0;
    if (!isServerDb(location))
      for (const marker of listMarkers(ctx.dbLocation.path))
        if (marker.writer === owner) {
          removeMarker(ctx.dbLocation.path, marker.scope, marker.writer, marker.call_id);
          markers++;
        }
    return ended + markers;
  } finally {
    ctx.db.close();
  }
}
