import { ALLOW, decideEdit, decideFailure, type Decision } from './decision';
import { reserveEdit, type EditRequest } from './edit';
import type { EditEvent } from './edit-events';
import { QUIET, type HookResult } from './hook-types';
import type { Payload } from './payload';
import { releaseRefusedEdit } from './refused';
import { envWithin, hookSettings } from './settings';
import type { HookCall } from './agents/adapter';

// The edit use cases of Claude Code and Codex, whose edit hooks read a payload as an EditEvent (edit-events.ts):
// before an edit tool its files are reserved, or the edit is denied; a refused call gives back what it took.

export async function beforeEdit({ adapter, parsed, env, cwd, deadline, workspace }: HookCall, toEvent: (payload: Payload) => EditEvent): Promise<HookResult> {
  if (!parsed.ok) return adapter.beforeToolReply({ kind: 'allow', notice: `ic: edit not checked: ${parsed.problem}` });
  const event = toEvent(parsed.value);
  if (event.kind === 'ignore') return adapter.beforeToolReply(ALLOW);
  if (event.kind === 'malformed') return adapter.beforeToolReply({ kind: 'allow', notice: `ic: edit not checked: ${event.problem}` });
  const settings = hookSettings(env);
  try {
    const outcome = await reserveEdit(editRequest(event, env, cwd), envWithin(env, deadline), workspace);
    return adapter.beforeToolReply(withSettingsProblem(decideEdit(outcome), settings.problem));
  } catch (error) {
    return adapter.beforeToolReply(withSettingsProblem(decideFailure(error, settings.failClosed), settings.problem));
  }
}

// Relative paths are read from the payload's cwd, else $CLAUDE_PROJECT_DIR, else the hook's own cwd; the
// project of each file is then found from the file itself (see reserveEdit).
function editRequest(event: Extract<EditEvent, { kind: 'edit' }>, env: NodeJS.ProcessEnv, cwd: string): EditRequest {
  const projectDir = env.CLAUDE_PROJECT_DIR || event.cwd || cwd;
  return { owner: event.owner, cwd: event.cwd ?? projectDir, projectDir, paths: event.paths, ...(event.toolUseId ? { toolUseId: event.toolUseId } : {}) };
}

// PostToolUseFailure / PermissionDenied of an edit tool: the call did not happen, so the lock it created goes.
export async function editRefused({ parsed, env, cwd, deadline }: HookCall, toEvent: (payload: Payload) => EditEvent): Promise<HookResult> {
  if (!parsed.ok) return { stdout: '', stderr: `ic: nothing released: ${parsed.problem}\n`, exitCode: 0 };
  const event = toEvent(parsed.value);
  if (event.kind !== 'edit' || event.toolUseId === undefined) return QUIET;
  const released = await releaseRefusedEdit({ ...editRequest(event, env, cwd), toolUseId: event.toolUseId }, envWithin(env, deadline, 1_000));
  return { stdout: '', stderr: released > 0 ? `ic: released ${released} lock${released === 1 ? '' : 's'} the refused edit had taken\n` : '', exitCode: 0 };
}

// A misread IC_HOOK_TIMEOUT is said under its own name, beside whatever else the hook has to say.
function withSettingsProblem(decision: Decision, problem: string | undefined): Decision {
  if (problem === undefined) return decision;
  return { ...decision, notice: decision.notice ? `${decision.notice}; ic: ${problem}` : `ic: ${problem}` };
}
