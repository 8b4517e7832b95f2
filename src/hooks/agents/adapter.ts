import type { Decision } from '../decision';
import type { Agent } from '../identity';
import type { Payload } from '../payload';
import type { RestoreReport } from '../custody/types';

// One agent client as ic sees it. Everything that differs between clients lives behind this interface
// (payload field names, tool names, the deny format, which events exist); everything that decides lives
// in the shared use cases (reserveEdit + decideEdit, the shell custody functions, releaseSession), run by
// run-agent.ts. Adding a client is one adapter file, its entry in AGENT_ADAPTERS, and a test.

/** What one tool call is to ic: a write to files, a shell command, or something ic leaves alone. */
export type ToolCall = { kind: 'edit'; paths: string[] } | { kind: 'shell'; command: string; timeoutMs?: number } | { kind: 'other' } | { kind: 'malformed'; problem: string };

/** The fields every hook payload gives ic, read from the client's own names. */
export interface SessionFields {
  sessionId: string | undefined;
  /** The session's working directory (relative paths are read from it). */
  cwd: string | undefined;
  /** The client's id for this tool call, when it has one. */
  callId?: string | undefined;
}

/** What a hook prints and how it exits, in the client's own wire format. */
export interface AgentReply {
  stdout: string;
  stderr: string;
  exitCode: 0 | 1;
}

export interface AgentAdapter {
  readonly agent: Agent;
  /** The client's name for people (messages, docs). */
  readonly label: string;
  /** Session id, cwd and call id of any payload of this client. */
  session(payload: Payload, env: NodeJS.ProcessEnv): SessionFields;
  /** The tool call a before- or after-tool payload describes. `cwd` is the session's, for relative paths. */
  toolCall(payload: Payload): ToolCall;
  /** The reply to a before-tool decision: allow (maybe with a notice) or deny with the reason. */
  beforeToolReply(decision: Decision): AgentReply;
  /** The reply after a tool ran: what custody put back, or a notice; nothing in the common case. */
  afterToolReply(notice: string | undefined): AgentReply;
}

export function restoreNotice(report: RestoreReport): string | undefined {
  const lines = [
    ...report.restored.map((r) => `ic: ${JSON.stringify(r.path)} is reserved by ${r.holder}; the shell command's change to it was undone.`),
    ...report.displaced.map((d) => `ic: ${JSON.stringify(d.path)} is reserved by ${d.holder}; the file the shell command created there was moved to ${JSON.stringify(d.movedTo)}.`),
    ...(report.unverified ?? []).map((u) => `ic: ${JSON.stringify(u.path)} is reserved by ${u.holder} and changed, but ic has no snapshot from before the command, so it left the file as it is.`),
    ...(report.refused ?? []).map((r) => `ic: ${JSON.stringify(r.path)} is reserved by ${r.holder}; the shell command's change was not undone: ${r.text}.`),
    ...(report.missing ?? []).map(
      (m) => `ic: ${JSON.stringify(m.path)} is reserved by ${m.holder}; the shell command changed it, but ${m.holder}'s content is no longer in git's object store, so it was left as it is.`,
    ),
    ...(report.saved ?? []).map((s) => `ic: what the shell command wrote to ${JSON.stringify(s.path)} is kept: \`coord undo ${s.event}\` puts it back once the file is free.`),
  ];
  return lines.length > 0 ? lines.join('\n') : undefined;
}
