import type { Decision } from '../decision';
import { isPatch, pathsFromPatch } from '../patch';
import { objectField, parsePayload, stringField, type Payload } from '../payload';
import type { Agent } from '../identity';
import type { HookResult } from '../hook-types';
import type { SessionFields, ToolCall, ToolClient } from './adapter';
import { TOOL_CLIENT_EVENTS } from './tool-events';

// One reader for the clients whose payload is a tool name, its arguments object and the session's fields
// (Gemini CLI, Copilot CLI, OpenCode through ic's plugin, pi through ic's extension): each adapter names its
// fields and tools; the reading and the messages are the same for all of them, and so is the reply
// (`{"decision":"deny","reason":…}`, `systemMessage` for a notice, exit 0) unless the client has its own.
export interface ToolPathClient {
  agent: Agent;
  session(payload: Payload, env: NodeJS.ProcessEnv): SessionFields;
  /** The payload's fields for the tool's name and its arguments, and what a problem calls the payload. */
  fields: { tool: string; args: string; input: 'hook input' | 'plugin input' | 'extension input'; argsMayBeText?: boolean };
  /** The edit tools and the argument naming the file (the first of `path` given). */
  edit: { tools: readonly string[]; path: readonly string[]; stripAt?: boolean };
  patch?: { tools: readonly string[]; fields: readonly string[] };
  /** The shell tools; `timeoutMs`: how many ms one unit of the call's `timeout` is (none: not read). */
  shell: { tools: readonly string[]; timeoutMs?: number };
  reply?(decision: Decision): HookResult;
}

export function toolPathAdapter(client: ToolPathClient): ToolClient {
  return {
    agent: client.agent,
    session: client.session,
    toolCall: (payload) => toolCallOf(client, payload),
    beforeToolReply: client.reply ?? decisionReply,
    afterToolReply: (notice) => (client.reply ?? decisionReply)({ kind: 'allow', ...(notice ? { notice } : {}) }),
    ...TOOL_CLIENT_EVENTS,
  };
}

function toolCallOf({ fields, edit, patch, shell }: ToolPathClient, payload: Payload): ToolCall {
  const tool = stringField(payload, fields.tool);
  if (tool === undefined) return { kind: 'malformed', problem: `the ${fields.input} has no ${fields.tool}` };
  // Copilot CLI 1.0.102 sends its arguments as an object; a version may send them as JSON text.
  const text = fields.argsMayBeText ? parsePayload(stringField(payload, fields.args) ?? '') : undefined;
  const args = objectField(payload, fields.args) ?? (text?.ok ? text.value : undefined);
  // Gemini's messages name the whole payload path (`the replace hook input has no tool_input.file_path`).
  const missing = (field: string) => `the ${tool} ${fields.input === 'hook input' ? 'hook input' : 'call'} has no ${fields.args}.${field}`;
  if (edit.tools.includes(tool)) {
    const path = edit.path.map((field) => stringField(args, field)).find((value) => value !== undefined);
    if (path === undefined) return { kind: 'malformed', problem: missing(edit.path[0]!) };
    return { kind: 'edit', paths: [edit.stripAt && path.startsWith('@') ? path.slice(1) : path] };
  }
  if (patch?.tools.includes(tool)) {
    const text = patch.fields.map((field) => stringField(args, field)).find((value) => value !== undefined);
    return patchCall(tool, text, `${fields.args}.${patch.fields[0]}`);
  }
  if (shell.tools.includes(tool)) {
    const command = stringField(args, 'command');
    if (command === undefined) return { kind: 'malformed', problem: missing('command') };
    const timeout = args?.timeout;
    return { kind: 'shell', command, ...(shell.timeoutMs !== undefined && typeof timeout === 'number' && timeout > 0 ? { timeoutMs: timeout * shell.timeoutMs } : {}) };
  }
  return { kind: 'other' };
}

// An apply_patch call (its patch text read from `field`): an edit of the files the patch names.
export function patchCall(tool: string, text: string | undefined, field: string): ToolCall {
  if (text === undefined || !isPatch(text)) return { kind: 'malformed', problem: `the ${tool} call has no patch in ${field}` };
  const paths = pathsFromPatch(text);
  return paths.length === 0 ? { kind: 'malformed', problem: `ic found no file in the ${tool} patch` } : { kind: 'edit', paths };
}

function decisionReply(decision: Decision): HookResult {
  const json: Record<string, unknown> = decision.kind === 'deny' ? { decision: 'deny', reason: decision.reason } : {};
  if (decision.notice) json.systemMessage = decision.notice;
  return { stdout: Object.keys(json).length === 0 ? '' : `${JSON.stringify(json)}\n`, stderr: '', exitCode: 0 };
}
