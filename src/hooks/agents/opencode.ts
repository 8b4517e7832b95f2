import type { Decision } from '../decision';
import { isPatch, pathsFromPatch } from '../patch';
import { objectField, stringField, type Payload } from '../payload';
import type { AgentAdapter, AgentReply, ToolCall } from './adapter';

// OpenCode (npm opencode-ai, checked with 1.18.33) has no command hooks: ic's plugin (.opencode/plugin/ic.js,
// written by `ic coord install --opencode`) passes each tool call here as `{session_id, call_id, cwd, tool,
// args}` (OpenCode's input.sessionID, input.callID, the project directory, input.tool, output.args) and
// throws the reason of a `{"decision":"deny","reason":…}` reply, which OpenCode hands to the model.
// Edit tools write/edit/multiedit take `filePath`; apply_patch (patch) takes `patchText`; the shell is bash.
export const OPENCODE_EDIT_TOOLS: readonly string[] = ['write', 'edit', 'multiedit'];
export const OPENCODE_PATCH_TOOLS: readonly string[] = ['apply_patch', 'patch'];
export const OPENCODE_SHELL_TOOLS: readonly string[] = ['bash'];

export const opencodeAdapter: AgentAdapter = {
  agent: 'opencode',
  label: 'OpenCode',
  session: (payload) => ({ sessionId: stringField(payload, 'session_id'), cwd: stringField(payload, 'cwd'), callId: stringField(payload, 'call_id') }),
  toolCall: (payload) => opencodeToolCall(payload),
  beforeToolReply: (decision) => opencodeReply(decision),
  afterToolReply: (notice) => opencodeReply({ kind: 'allow', ...(notice ? { notice } : {}) }),
};

function opencodeToolCall(payload: Payload): ToolCall {
  const tool = stringField(payload, 'tool');
  if (tool === undefined) return { kind: 'malformed', problem: 'the plugin input has no tool' };
  const args = objectField(payload, 'args');
  if (OPENCODE_EDIT_TOOLS.includes(tool)) {
    const path = stringField(args, 'filePath');
    return path === undefined ? { kind: 'malformed', problem: `the ${tool} call has no args.filePath` } : { kind: 'edit', paths: [path] };
  }
  if (OPENCODE_PATCH_TOOLS.includes(tool)) {
    const patch = stringField(args, 'patchText') ?? stringField(args, 'patch');
    if (patch === undefined || !isPatch(patch)) return { kind: 'malformed', problem: `the ${tool} call has no patch in args.patchText` };
    const paths = pathsFromPatch(patch);
    return paths.length === 0 ? { kind: 'malformed', problem: `ic found no file in the ${tool} patch` } : { kind: 'edit', paths };
  }
  if (OPENCODE_SHELL_TOOLS.includes(tool)) {
    const command = stringField(args, 'command');
    if (command === undefined) return { kind: 'malformed', problem: `the ${tool} call has no args.command` };
    const timeout = args?.timeout;
    return { kind: 'shell', command, ...(typeof timeout === 'number' && timeout > 0 ? { timeoutMs: timeout } : {}) };
  }
  return { kind: 'other' };
}

function opencodeReply(decision: Decision): AgentReply {
  const json: Record<string, unknown> = decision.kind === 'deny' ? { decision: 'deny', reason: decision.reason } : {};
  if (decision.notice) json.systemMessage = decision.notice;
  return { stdout: Object.keys(json).length === 0 ? '' : `${JSON.stringify(json)}\n`, stderr: '', exitCode: 0 };
}
