import { MAX_TTL_MS } from '../core/time';
import { objectField, stringField, type Payload } from './payload';

const SHELL_TOOLS = new Set(['Bash', 'exec_command', 'shell', 'local_shell', 'run_shell_command', 'bash']);
const PRE_TOOL_EVENTS = new Set(['PreToolUse', 'BeforeTool', 'preToolUse']);
// Claude Code's Bash default timeout, when the call names none (BASH_DEFAULT_TIMEOUT_MS changes it).
const CLAUDE_BASH_DEFAULT_MS = 120_000;

// The timeout of the shell command a PreToolUse is about to let run, in ms; undefined for anything else.
export function shellTimeoutOf(name: string, payload: Payload, env: NodeJS.ProcessEnv): number | undefined {
  const tool = stringField(payload, 'tool_name') ?? stringField(payload, 'toolName') ?? '';
  const event = stringField(payload, 'hook_event_name') ?? stringField(payload, 'hookEventName');
  if (!SHELL_TOOLS.has(tool) || (event !== undefined ? !PRE_TOOL_EVENTS.has(event) : !name.includes('-pre-'))) return undefined;
  const input = objectField(payload, 'tool_input') ?? objectField(payload, 'toolArgs') ?? {};
  if (input.run_in_background === true) return undefined; // runs on past the call: the ordinary renewal covers it
  const given = [input.timeout, input.timeout_ms].find((value) => typeof value === 'number' && Number.isFinite(value) && value > 0) as number | undefined;
  const fallback = Number(env.BASH_DEFAULT_TIMEOUT_MS) > 0 ? Number(env.BASH_DEFAULT_TIMEOUT_MS) : CLAUDE_BASH_DEFAULT_MS;
  return Math.min(given ?? fallback, MAX_TTL_MS);
}
