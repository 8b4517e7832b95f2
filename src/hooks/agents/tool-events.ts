import { checkShellCommand } from '../custody/pre-shell';
import { recordHolderWrite } from '../custody/holder-write';
import { restoreEveryWorkTree, snapshotEveryWorkTree } from '../custody/every-repo';
import { restoreMessage } from '../custody/post-tool';
import type { ShellRequest } from '../custody/types';
import { ALLOW, decideEdit, decideFailure } from '../decision';
import { reserveEdit, type EditRequest } from '../edit';
import { ownerForSession } from '../identity';
import type { Payload } from '../payload';
import { releaseSession } from '../session';
import { envWithin, hookSettings } from '../settings';
import type { Deadline } from '../../store/deadline';
import { QUIET, type HookResult } from '../hook-types';
import { type SessionFields, type ToolClient, type UseCase } from './adapter';

// The events of a client that sends ic only its tool calls and its session's end (Gemini CLI, Copilot CLI,
// OpenCode, pi, Cline; hook names `<agent>-<event>`): payload → the client's tool call → the shared use case
// → the client's reply. Never throws and never exits 2: a failure is the usual fail-open notice (or a deny
// with IC_HOOK_FAIL=closed).
export type ToolEvent = 'pre-tool' | 'post-tool' | 'session-end';

// The events of every such client and its reply when ic could not do their work: each adapter takes them as they are.
const TOOL_EVENTS: Readonly<Record<ToolEvent, UseCase>> = { 'pre-tool': withPayload(beforeTool), 'post-tool': withPayload(afterTool), 'session-end': withPayload(sessionEnd) };
export const TOOL_CLIENT_EVENTS: Pick<ToolClient, 'events' | 'failed'> = { events: TOOL_EVENTS, failed: toolEventFailed };

function withPayload(work: (adapter: ToolClient, payload: Payload, env: NodeJS.ProcessEnv, hookCwd: string, deadline: Deadline) => Promise<HookResult>): UseCase {
  return async ({ adapter: ofTool, event, parsed, env, cwd, deadline }) => {
    const adapter = ofTool as ToolClient; // these events are a ToolClient's only
    if (!parsed.ok) return event === 'pre-tool' ? adapter.beforeToolReply({ kind: 'allow', notice: `ic: tool call not checked: ${parsed.problem}` }) : { ...QUIET, stderr: `ic: ${parsed.problem}\n` };
    try {
      return await work(adapter, parsed.value, env, cwd, deadline);
    } catch (error) {
      return adapter.failed(event, error, hookSettings(env).failClosed);
    }
  };
}

// ic could not do the hook's work: a tool call is allowed with a notice, or denied with IC_HOOK_FAIL=closed.
function toolEventFailed(this: ToolClient, event: string, error: unknown, failClosed: boolean): HookResult {
  if (event === 'pre-tool') return this.beforeToolReply(decideFailure(error, failClosed));
  return { ...QUIET, stderr: `ic: ${this.agent}-${event} hook failed: ${error instanceof Error ? error.message : String(error)}\n` };
}

type Session = { owner: string; cwd: string; callId?: string };

function sessionOf(adapter: ToolClient, payload: Payload, env: NodeJS.ProcessEnv, hookCwd: string): Session | undefined {
  const fields: SessionFields = adapter.session(payload, env);
  if (fields.sessionId === undefined) return undefined;
  return { owner: ownerForSession(adapter.agent, fields.sessionId), cwd: fields.cwd ?? hookCwd, ...(fields.callId ? { callId: fields.callId } : {}) };
}

function editRequest(session: Session, paths: string[]): EditRequest {
  return { owner: session.owner, cwd: session.cwd, projectDir: session.cwd, paths, ...(session.callId ? { toolUseId: session.callId } : {}) };
}

function shellRequest(session: Session, command: string, timeoutMs: number | undefined): ShellRequest {
  return { owner: session.owner, cwd: session.cwd, projectDir: session.cwd, command, ...(session.callId ? { callId: session.callId } : {}), ...(timeoutMs !== undefined ? { timeoutMs } : {}) };
}

// Before a tool: an edit reserves its files (the same call and message as Claude's and Codex's edits); a
// shell command is checked by custody, and the files others hold are snapshotted for the after-hook.
async function beforeTool(adapter: ToolClient, payload: Payload, env: NodeJS.ProcessEnv, hookCwd: string, deadline: Deadline): Promise<HookResult> {
  const call = adapter.toolCall(payload);
  if (call.kind === 'other') return adapter.beforeToolReply(ALLOW);
  if (call.kind === 'malformed') return adapter.beforeToolReply({ kind: 'allow', notice: `ic: tool call not checked: ${call.problem}` });
  const session = sessionOf(adapter, payload, env, hookCwd);
  if (session === undefined) return adapter.beforeToolReply({ kind: 'allow', notice: 'ic: tool call not checked: the hook input has no session id, so ic cannot tell which session it is' });
  const dbEnv = envWithin(env, deadline);
  if (call.kind === 'edit') return adapter.beforeToolReply(decideEdit(await reserveEdit(editRequest(session, call.paths), dbEnv)));
  const request = shellRequest(session, call.command, call.timeoutMs);
  const decision = decideEdit(await checkShellCommand(request, dbEnv));
  if (decision.kind === 'allow') await snapshotEveryWorkTree(request, dbEnv);
  return adapter.beforeToolReply(decision);
}

// After a tool: the holder's own edit becomes what a restore puts back; a shell command's changes to files
// others hold are put back (custody).
async function afterTool(adapter: ToolClient, payload: Payload, env: NodeJS.ProcessEnv, hookCwd: string, deadline: Deadline): Promise<HookResult> {
  const call = adapter.toolCall(payload);
  if (call.kind !== 'edit' && call.kind !== 'shell') return adapter.afterToolReply(undefined);
  const session = sessionOf(adapter, payload, env, hookCwd);
  if (session === undefined) return adapter.afterToolReply(undefined);
  const dbEnv = envWithin(env, deadline, 2_000);
  if (call.kind === 'edit') {
    await recordHolderWrite(session.owner, call.paths, session.cwd, dbEnv);
    return adapter.afterToolReply(undefined);
  }
  return adapter.afterToolReply(restoreMessage(await restoreEveryWorkTree(shellRequest(session, call.command, call.timeoutMs), dbEnv, deadline)));
}

// Session end: the session's locks and claims go at once (clients give this hook little time).
async function sessionEnd(adapter: ToolClient, payload: Payload, env: NodeJS.ProcessEnv, hookCwd: string, deadline: Deadline): Promise<HookResult> {
  const session = sessionOf(adapter, payload, env, hookCwd);
  if (session === undefined) return { ...QUIET, stderr: 'ic: nothing released: the hook input has no session id\n' };
  const released = await releaseSession(session.cwd, session.owner, envWithin(env, deadline, 1_000));
  return { ...QUIET, stderr: released > 0 ? `ic: released ${released} lock${released === 1 ? '' : 's'} of ${session.owner}\n` : '' };
}
