import type { AgentAdapter } from './adapter';
import { claudeAdapter } from './claude';
import { clineAdapter } from './cline';
import { codexAdapter } from './codex';
import { copilotAdapter } from './copilot';
import { geminiAdapter } from './gemini';
import { opencodeAdapter } from './opencode';
import { piAdapter } from './pi';

// Every client, by the first word of its hook names: `coord hook claude-pre-edit` is Claude Code's event
// `pre-edit` (docs/architecture.md, "Clients").
export const AGENT_ADAPTERS: Readonly<Record<string, AgentAdapter>> = {
  claude: claudeAdapter,
  codex: codexAdapter,
  gemini: geminiAdapter,
  copilot: copilotAdapter,
  opencode: opencodeAdapter,
  pi: piAdapter,
  cline: clineAdapter,
};

/** The client and event a hook name stands for; undefined for git's hooks. */
export function adapterOfHook(name: string): { adapter: AgentAdapter; event: string } | undefined {
  const dash = name.indexOf('-');
  const adapter = Object.hasOwn(AGENT_ADAPTERS, name.slice(0, dash)) ? AGENT_ADAPTERS[name.slice(0, dash)] : undefined;
  const event = name.slice(dash + 1);
  return adapter !== undefined && Object.hasOwn(adapter.events, event) ? { adapter, event } : undefined;
}
