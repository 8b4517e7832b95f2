import { decideFailure, describeError, type Decision } from '../decision';
import { noticeOutput, postToolUseOutput, preToolUseOutput } from '../output';
import type { Agent } from '../identity';
import type { EditEvent } from '../edit-events';
import type { ParsedPayload, Payload } from '../payload';
import type { Deadline } from '../../store/deadline';
import type { HookResult } from '../hook-types';

// One agent client as ic sees it. Everything that differs between clients lives behind this interface
// (payload field names, tool names, the deny format, which events exist and what each one does);
// everything that decides lives in the shared use cases (tool-events.ts for clients that only send tool
// calls and session end; session-events.ts and the custody modules for Claude Code's and Codex's richer
// events). Adding a client is one adapter file, its entry in AGENT_ADAPTERS, its install entry, and tests.

/** What one tool call is to ic: a write to files, a shell command, or something ic leaves alone. */
export type ToolCall = { kind: 'edit'; paths: string[] } | { kind: 'shell'; command: string; timeoutMs?: number } | { kind: 'other' } | { kind: 'malformed'; problem: string };

/** The fields every payload gives ic, read from the client's own names: the session, its working directory (relative paths are read from it), the call's id. */
export type SessionFields = { sessionId: string | undefined; cwd: string | undefined; callId?: string | undefined };

/** One hook process as a use case gets it: the client's adapter, the event (the hook name after `<agent>-`), its payload (parsed once, by runHook); the session's workspace when the session step found it. */
export type HookCall = { adapter: AgentAdapter; event: string; parsed: ParsedPayload; env: NodeJS.ProcessEnv; cwd: string; deadline: Deadline; workspace?: import('../../coord/workspace').Workspace };

export type UseCase = (call: HookCall) => HookResult | Promise<HookResult>;

export interface AgentAdapter {
  readonly agent: Agent;
  /** The reply to a before-tool decision: allow (maybe with a notice) or deny with the reason. */
  beforeToolReply(decision: Decision): HookResult;
  /** The reply after a tool ran: what custody put back, or a notice; nothing in the common case. */
  afterToolReply(notice: string | undefined): HookResult;
  /** The client's hook events (`coord hook <agent>-<event>`) and the use case each one runs. */
  readonly events: Readonly<Record<string, UseCase>>;
  /** The reply when ic could not do an event's work (a bug, an unusable database, the deadline). */
  failed(event: string, error: unknown, failClosed: boolean): HookResult;
}

/** A client that sends ic its tool calls and its session's end only (tool-events.ts runs them). */
export interface ToolClient extends AgentAdapter {
  /** Session id, cwd and call id of any payload of this client. */
  session(payload: Payload, env: NodeJS.ProcessEnv): SessionFields;
  /** The tool call a before- or after-tool payload describes. */
  toolCall(payload: Payload): ToolCall;
}

/** How a client of Claude Code's hook shape (Claude Code, Codex) names who and where in its payloads. */
export interface PayloadReader {
  /** The session's owner, for session events. */
  owner(payload: Payload, env: NodeJS.ProcessEnv): string | undefined;
  /** The owner of one tool call (in Claude Code, a subagent's own). */
  callOwner(payload: Payload, env: NodeJS.ProcessEnv): string | undefined;
  /** The directory the session's project is found from. */
  dir(payload: Payload, env: NodeJS.ProcessEnv, hookCwd: string): string;
  readonly shellTools: readonly string[];
  /** The files an edit tool call wrote, read after it ran. */
  editEvent(payload: Payload, env: NodeJS.ProcessEnv): EditEvent;
  /** The session's private staging area (install --git-index) is refreshed before git commands and goes with the session. */
  readonly privateIndex?: boolean;
}

// Claude Code's and Codex's replies, one shape for both: PreToolUse's deny or notice, PostToolUse's context
// for the model; a failed tool check allows the call with a notice (or denies it with IC_HOOK_FAIL=closed),
// any other event's failure is a notice.
export const HOOK_JSON_REPLIES: Pick<AgentAdapter, 'beforeToolReply' | 'afterToolReply' | 'failed'> = {
  beforeToolReply: (decision) => ({ stdout: preToolUseOutput(decision), stderr: '', exitCode: 0 }),
  afterToolReply: (notice) => ({ stdout: notice === undefined ? '' : postToolUseOutput(notice), stderr: '', exitCode: 0 }),
  failed(this: AgentAdapter, event, error, failClosed) {
    if (event === 'pre-edit' || event === 'pre-shell') return this.beforeToolReply(decideFailure(error, failClosed));
    return { stdout: noticeOutput(`ic: ${this.agent}-${event} hook failed: ${describeError(error)}`), stderr: '', exitCode: 0 };
  },
};
