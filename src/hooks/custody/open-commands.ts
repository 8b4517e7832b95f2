import { existsSync } from 'node:fs';
import { createContext, resolveWorkspace, writeTransaction } from '../../coord/context';
import { endCommandsOf, openCommandsOf } from '../../store/custody';
import { isServerDb } from '../../store/discover';
import type { Deadline } from '../../store/deadline';
import { listMarkers, removeMarker } from '../../store/markers';
import { addReport, restoreEveryWorkTree } from './every-repo';
import { tellLater } from './late-writes';
import { restoreMessage } from './post-tool';
import type { RestoreReport } from './types';

// How events name a command ended at its turn's end (its text is only in the client's before hook).
const OPEN_AT_TURN_END = '(a shell command still open at the end of its turn)';

// A shell command is open from its before hook until its after hook. One whose after hook has not come by
// the turn's end (Stop) or the next prompt (UserPromptSubmit) stops counting as running there (else, for a
// day, every other agent's write to its writer's held files would be "left"). For Claude Code that is a
// command denied or interrupted at the prompt: it wrote nothing, or was stopped by the person there, so it
// only ends (a change to a held file meanwhile may be a person's save). For Codex it may also be a command
// past its yield that the model never polled (Codex sends its PostToolUse only once polled): it is ended as
// its after hook would end it (`mayStillRun`): what it changed in files other owners hold is put back by its
// snapshot, its writer is told at its next hook, and what it writes later is watched (late-writes.ts).
// Subagents' commands are left to their own lineage (SubagentStop ends a subagent's turn).
export async function endTurnCommands(dir: string, owner: string, env: NodeJS.ProcessEnv, deadline: Deadline, mayStillRun: boolean): Promise<string | undefined> {
  const workspace = resolveWorkspace(dir, { env });
  const location = workspace.db;
  if (!workspace.git || (!isServerDb(location) && !existsSync(location.path))) return undefined;
  const open = async (): Promise<string[]> => {
    const ctx = await createContext({ workspace, env, write: true });
    try {
      const calls = (await openCommandsOf(ctx.db, owner)).map((c) => c.call_id);
      if (!isServerDb(location)) calls.push(...listMarkers(ctx.dbLocation.path).flatMap((m) => (m.writer === owner ? [m.call_id] : [])));
      return [...new Set(calls)];
    } finally {
      ctx.db.close();
    }
  };
  const calls = await open();
  if (calls.length === 0) return undefined;
  // Codex's open commands end as their after hook would; Claude's only end (below).
  const report: RestoreReport = { restored: [], displaced: [] };
  if (mayStillRun)
    for (const callId of calls) addReport(report, await restoreEveryWorkTree({ owner, cwd: dir, projectDir: dir, command: '', label: OPEN_AT_TURN_END, callId, lingers: {} }, env, deadline));
  const message = restoreMessage(report);
  const ctx = await createContext({ workspace, env, write: true });
  try {
    // What no restore above reached (a scope of another work tree) ends all the same: its commands in any
    // scope, named by their writer (no grant decides by them, so no scope is locked).
    await writeTransaction(ctx, { scopes: [], owners: [owner] }, async () => endCommandsOf(ctx.db, [owner]));
    if (!isServerDb(location)) for (const marker of listMarkers(ctx.dbLocation.path)) if (marker.writer === owner) removeMarker(ctx.dbLocation.path, marker.scope, marker.writer, marker.call_id);
    if (message !== undefined) await tellLater(ctx, owner, message);
  } finally {
    ctx.db.close();
  }
  return message;
}

// The hook's stdout: what was put back, for the person (the model reads it at its next hook). A failure
// here leaves the commands to the day-long purge; the turn ends all the same.
export async function endTurnOutput(dir: string, owner: string, env: NodeJS.ProcessEnv, deadline: Deadline, mayStillRun: boolean): Promise<string> {
  try {
    const message = await endTurnCommands(dir, owner, env, deadline, mayStillRun);
    return message === undefined ? '' : `${JSON.stringify({ systemMessage: message })}\n`;
  } catch (error) {
    return `${JSON.stringify({ systemMessage: `ic: the open shell commands of ${owner} were not checked: ${error instanceof Error ? error.message : String(error)}` })}\n`;
  }
}
