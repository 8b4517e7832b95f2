import type { Decision } from '../decision';
import { objectField, stringField, type Payload } from '../payload';
import type { AgentAdapter, AgentReply, ToolCall } from './adapter';

// pi (npm @mariozechner/pi-coding-agent, checked with 0.73.1) has no command hooks: ic's extension
// (.pi/extensions/ic.ts, written by `ic coord install --pi`) passes each tool call here as `{session_id,
// call_id, cwd, tool, input}` (ctx.sessionManager.getSessionId(), event.toolCallId, ctx.cwd, event.toolName,
// event.input) and blocks the call with the reason of a `{"decision":"deny","reason":…}` reply, which pi
// hands to the model as the tool's result. Edit tools write {path, content} and edit {path, edits}; the
// shell is bash {command, timeout (seconds)}. pi drops one leading `@` of a path; so does ic.
export const PI_EDIT_TOOLS: readonly string[] = ['write', 'edit'];
export const PI_SHELL_TOOLS: readonly string[] = ['bash'];

export const piAdapter: AgentAdapter = {
  agent: 'pi',
  label: 'pi',
  session: (payload) => ({ sessionId: stringField(payload, 'session_id'), cwd: stringField(payload, 'cwd'), callId: stringField(payload, 'call_id') }),
  toolCall: (payload) => piToolCall(payload),
  beforeToolReply: (decision) => piReply(decision),
  afterToolReply: (notice) => piReply({ kind: 'allow', ...(notice ? { notice } : {}) }),
};

function piToolCall(payload: Payload): ToolCall {
  const tool = stringField(payload, 'tool');
  if (tool === undefined) return { kind: 'malformed', problem: 'the extension input has no tool' };
  const input = objectField(payload, 'input');
  if (PI_EDIT_TOOLS.includes(tool)) {
    const path = stringField(input, 'path');
    return path === undefined ? { kind: 'malformed', problem: `the ${tool} call has no input.path` } : { kind: 'edit', paths: [path.startsWith('@') ? path.slice(1) : path] };
  }
  if (PI_SHELL_TOOLS.includes(tool)) {
    const command = stringField(input, 'command');
    if (command === undefined) return { kind: 'malformed', problem: `the ${tool} call has no input.command` };
    const timeout = input?.timeout;
    return { kind: 'shell', command, ...(typeof timeout === 'number' && timeout > 0 ? { timeoutMs: timeout * 1000 } : {}) };
  }
  return { kind: 'other' };
}

function piReply(decision: Decision): AgentReply {
  const json: Record<string, unknown> = decision.kind === 'deny' ? { decision: 'deny', reason: decision.reason } : {};
  if (decision.notice) json.systemMessage = decision.notice;
  return { stdout: Object.keys(json).length === 0 ? '' : `${JSON.stringify(json)}\n`, stderr: '', exitCode: 0 };
}
