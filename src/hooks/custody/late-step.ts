import type { Deadline } from '../deadline';
import type { HookInput } from '../run';
import { parsePayload, stringField } from '../payload';
import { envWithin } from '../settings';
import type { SessionStep } from '../liveness';
import { noticeLateWrites } from './late-writes';

// Events whose reply carries additionalContext to the model (as the liveness step's hand-off requests).
const TELLS = new Set(['PreToolUse', 'PostToolUse', 'UserPromptSubmit', 'SessionStart']);

// Every Claude Code and Codex hook looks for late writes (late-writes.ts) after its own work, and hands the
// session's model what it is to be told, beside the liveness step's context. Costs a stat when nothing is
// pending; a failure only delays the notice to a later hook.
export function withLateNotices(name: string, input: HookInput, env: NodeJS.ProcessEnv, cwd: string, step: SessionStep | undefined, deadline: Deadline): SessionStep | undefined {
  if (!(name.startsWith('claude-') || name.startsWith('codex-')) || step === undefined || step.owner === '') return step;
  try {
    const parsed = parsePayload(input.text, input.truncated);
    if (!parsed.ok) return step;
    const eventName = stringField(parsed.value, 'hook_event_name');
    const tell = eventName !== undefined && TELLS.has(eventName);
    const dir = stringField(parsed.value, 'cwd') || env.CLAUDE_PROJECT_DIR || cwd;
    const text = noticeLateWrites(dir, step.owner, envWithin(env, deadline, 1_000), tell);
    if (text === undefined || eventName === undefined) return step;
    return { ...step, eventName, context: step.context ? `${step.context}\n${text}` : text };
  } catch {
    return step;
  }
}
