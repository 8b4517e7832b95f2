import { stringField } from '../payload';
import { toolPathAdapter } from './tool-path';

// OpenCode (npm opencode-ai, checked with 1.18.33) has no command hooks: ic's plugin (.opencode/plugin/ic.js,
// written by `ic coord install --opencode`) passes each tool call here as `{session_id, call_id, cwd, tool,
// args}` (OpenCode's input.sessionID, input.callID, the project directory, input.tool, output.args) and
// throws the reason of a `{"decision":"deny","reason":…}` reply, which OpenCode hands to the model.
// Edit tools write/edit/multiedit take `filePath`; apply_patch (patch) takes `patchText`; the shell is bash.
export const opencodeAdapter = toolPathAdapter({
  agent: 'opencode',
  session: (payload) => ({ sessionId: stringField(payload, 'session_id'), cwd: stringField(payload, 'cwd'), callId: stringField(payload, 'call_id') }),
  fields: { tool: 'tool', args: 'args', input: 'plugin input' },
  edit: { tools: ['write', 'edit', 'multiedit'], path: ['filePath'] },
  patch: { tools: ['apply_patch', 'patch'], fields: ['patchText', 'patch'] },
  shell: { tools: ['bash'], timeoutMs: 1 },
});
