import type { Agent } from './identity';
import { agentOfHook } from './liveness';
import type { HookName } from './names';
import { stringField, type ParsedPayload } from './payload';
import { ownHooksInstalled, realClientOf } from './real-client';
import type { ToolEvent } from './agents/tool-events';

// Who a hook acts for (docs/agents.md, "One agent, whoever runs the hook file"). Usually its own client.
// When another client runs it (Copilot CLI running the Claude Code hooks in .claude/), the hook acts as
// that client's one session owner: it steps aside when that client's own ic hooks are installed (they do
// the work, once), and otherwise does their work itself, as that client (`copilot-<session>`).
export type HookRoute = { kind: 'own' } | { kind: 'step-aside'; client: Agent } | { kind: 'as-copilot'; phase: ToolEvent | undefined; livenessName: string };

const OWN: HookRoute = { kind: 'own' };

// The Claude hooks that do a Copilot hook's work when Copilot runs them; the others only prove it alive.
const COPILOT_PHASE_OF_CLAUDE_HOOK: Partial<Record<HookName, ToolEvent>> = {
  'claude-pre-edit': 'pre-tool',
  'claude-pre-shell': 'pre-tool',
  'claude-post-tool': 'post-tool',
  'claude-session-end': 'session-end',
};

export function routeOfHook(name: HookName, parsed: ParsedPayload, env: NodeJS.ProcessEnv, cwd: string): HookRoute {
  const hookAgent = agentOfHook(name);
  if (hookAgent === undefined || hookAgent === 'opencode') return OWN; // git hooks; OpenCode's plugin runs in OpenCode itself
  if (!parsed.ok) return OWN;
  const real = realClientOf(hookAgent, parsed.value, env);
  if (real === undefined || real === hookAgent) return OWN;
  const dir = stringField(parsed.value, 'cwd') ?? env.COPILOT_PROJECT_DIR ?? cwd;
  if (ownHooksInstalled(real, dir)) return { kind: 'step-aside', client: real };
  if (hookAgent === 'claude' && real === 'copilot') return { kind: 'as-copilot', phase: COPILOT_PHASE_OF_CLAUDE_HOOK[name], livenessName: `copilot-${name.slice('claude-'.length)}` };
  return OWN; // only this hook file runs for that client: one owner already
}
