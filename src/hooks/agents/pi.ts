import { stringField } from '../payload';
import { toolPathAdapter } from './tool-path';

// pi (npm @mariozechner/pi-coding-agent, checked with 0.73.1) has no command hooks: ic's extension
// (.pi/extensions/ic.ts, written by `ic coord install --pi`) passes each tool call here as `{session_id,
// call_id, cwd, tool, input}` (ctx.sessionManager.getSessionId(), event.toolCallId, ctx.cwd, event.toolName,
// event.input) and blocks the call with the reason of a `{"decision":"deny","reason":…}` reply, which pi
// hands to the model as the tool's result. Edit tools write {path, content} and edit {path, edits}; the
// shell is bash {command, timeout (seconds)}. pi drops one leading `@` of a path; so does ic.
export const piAdapter = toolPathAdapter({
  agent: 'pi',
  session: (payload) => ({ sessionId: stringField(payload, 'session_id'), cwd: stringField(payload, 'cwd'), callId: stringField(payload, 'call_id') }),
  fields: { tool: 'tool', args: 'input', input: 'extension input' },
  edit: { tools: ['write', 'edit'], path: ['path'], stripAt: true },
  shell: { tools: ['bash'], timeoutMs: 1000 },
});
