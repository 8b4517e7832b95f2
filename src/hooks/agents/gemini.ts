import { stringField } from '../payload';
import { toolPathAdapter } from './tool-path';

// Gemini CLI (npm @google/gemini-cli, checked with 0.61): hooks in .gemini/settings.json (BeforeTool,
// AfterTool, SessionEnd), input `session_id, cwd, tool_name, tool_input`. Edit tools write_file and replace
// take `file_path` as the model wrote it (maybe relative to cwd); the shell tool is run_shell_command.
// A deny is `{"decision":"deny","reason":…}` on stdout (exit 0); `systemMessage` shows a notice.
export const GEMINI_EDIT_TOOLS: readonly string[] = ['write_file', 'replace'];
export const GEMINI_SHELL_TOOLS: readonly string[] = ['run_shell_command'];

export const geminiAdapter = toolPathAdapter({
  agent: 'gemini',
  session: (payload, env) => ({ sessionId: stringField(payload, 'session_id') ?? (env.GEMINI_SESSION_ID || undefined), cwd: stringField(payload, 'cwd') ?? (env.GEMINI_PROJECT_DIR || undefined) }),
  fields: { tool: 'tool_name', args: 'tool_input', input: 'hook input' },
  edit: { tools: GEMINI_EDIT_TOOLS, path: ['file_path'] },
  shell: { tools: GEMINI_SHELL_TOOLS },
});
