import type { HookName } from '../names';
import type { AgentAdapter } from './adapter';
import { copilotAdapter } from './copilot';
import { geminiAdapter } from './gemini';
import { clineAdapter } from './cline';
import { opencodeAdapter } from './opencode';
import { piAdapter } from './pi';
import type { AgentPhase } from './run-agent';

// The adapted clients, by the prefix of their hook names (`gemini-pre-tool` → Gemini CLI, phase pre-tool).
export const AGENT_ADAPTERS = { gemini: geminiAdapter, copilot: copilotAdapter, opencode: opencodeAdapter, pi: piAdapter, cline: clineAdapter } as const;
export type AdaptedAgent = keyof typeof AGENT_ADAPTERS;
export type AgentHookName = Extract<HookName, `${AdaptedAgent}-${AgentPhase}`>;

const PATTERN = /^(gemini|copilot|opencode|pi|cline)-(pre-tool|post-tool|session-end)$/;

export function isAgentHookName(name: HookName): name is AgentHookName {
  return PATTERN.test(name);
}

export function agentHookOf(name: AgentHookName): { adapter: AgentAdapter; phase: AgentPhase } {
  const [, agent, phase] = PATTERN.exec(name)!;
  return { adapter: AGENT_ADAPTERS[agent as AdaptedAgent], phase: phase as AgentPhase };
}
