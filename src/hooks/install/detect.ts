import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { findGitInfo } from '../../store/discover';
import { runnable } from './hook-commands';
import type { AgentTarget } from './agents';

// What `ic coord install` configures: Claude Code, Codex, git's hooks, and each client of agents.ts.
export type Target = 'claude' | 'codex' | 'git' | AgentTarget;

// `ic coord install` with no client flag configures the clients that are there. One function per
// target says whether it is, and why.
export interface Detection {
  found: boolean;
  /** Why it was (or was not) found, for the install report. */
  why: string;
}

export interface DetectContext {
  projectRoot: string;
  env: NodeJS.ProcessEnv;
}

function homeOf(env: NodeJS.ProcessEnv): string {
  return env.HOME || homedir();
}

// A client is there when its program is on PATH, or its user config directory or the project's exists.
function detectClient(program: string, configDir: string, projectDir: string, context: DetectContext): Detection {
  if (runnable(program, context.env)) return { found: true, why: `\`${program}\` is on PATH` };
  const dir = [configDir, join(context.projectRoot, projectDir)].find((candidate) => existsSync(candidate));
  if (dir) return { found: true, why: `${dir} exists` };
  return { found: false, why: `no \`${program}\` on PATH and no ${configDir} or ${projectDir}` };
}

// One detector per target: a new client is one more entry. A client's user config directory is named by
// its own variable when set.
export const DETECTORS: Record<Target, (context: DetectContext) => Detection> = {
  claude: (c) => detectClient('claude', join(homeOf(c.env), '.claude'), '.claude', c),
  codex: (c) => detectClient('codex', c.env.CODEX_HOME || join(homeOf(c.env), '.codex'), '.codex', c),
  git: (c) => (findGitInfo(c.projectRoot) ? { found: true, why: 'a git repository' } : { found: false, why: 'not a git repository' }),
  gemini: (c) => detectClient('gemini', c.env.GEMINI_CLI_HOME || join(homeOf(c.env), '.gemini'), '.gemini', c),
  copilot: (c) => detectClient('copilot', c.env.COPILOT_HOME || join(homeOf(c.env), '.copilot'), '.github/hooks', c),
  opencode: (c) => detectClient('opencode', join(c.env.XDG_CONFIG_HOME || join(homeOf(c.env), '.config'), 'opencode'), '.opencode', c),
  pi: (c) => detectClient('pi', c.env.PI_CODING_AGENT_DIR || join(homeOf(c.env), '.pi'), '.pi', c),
  // Cline's CLI keeps its state in ~/.cline (or $CLINE_DATA_DIR); a project's .clinerules is Cline's.
  cline: (c) => detectClient('cline', c.env.CLINE_DATA_DIR || join(homeOf(c.env), '.cline'), '.clinerules', c),
};
