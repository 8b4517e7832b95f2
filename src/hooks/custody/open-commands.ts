import { existingContext, writeTransaction } from '../../coord/context';
import { EVERYTHING } from '../../store/connection';
import { endCommandsOf } from '../../store/custody';
import { isServerDb } from '../../store/discover';
import { listMarkers, removeMarker } from '../../store/markers';

// A shell command is open from its before hook until its after hook. One whose after hook never comes (the
// person denied or interrupted it at the permission prompt, the client gave up on it) would otherwise count
// as running for a day: while it does, every other agent's write to its writer's held files is "left", and
// no holder content is refreshed. A foreground command cannot outlive its session's turn, and a command the
// client moved to the background has had its after hook already, so the turn's end (Stop) and the next
// prompt (UserPromptSubmit) end every command the session itself still has open. Subagents' commands are
// left to their own lineage (SubagentStop ends a subagent's turn).
export function endTurnCommands(dir: string, owner: string, env: NodeJS.ProcessEnv): number {
  const ctx = existingContext(dir, env, true);
  if (!ctx) return 0;
  const location = ctx.dbLocation;
  try {
    const ended = writeTransaction(ctx, EVERYTHING, () => endCommandsOf(ctx.db, [owner]));
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
