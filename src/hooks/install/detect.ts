import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { findGitInfo } from '../../store/discover';
import { runnable } from './hook-commands';

// `ic coord install` with no client flag configures the clients that are there. One function per
// target says whether it is, and why: a new client is one more function in DETECTORS.
export interface Detection {
  found: boolean;
  /** Why it was (or was not) found, for the install report. */
  why: string;
}

export interface DetectContext {
  projectRoot: string;
  env: NodeJS.ProcessEnv;
}

export type Detector = (context: DetectContext) => Detection;

export function homeOf(env: NodeJS.ProcessEnv): string {
  return env.HOME || homedir();
}

// A client is there when its program is on PATH, or its user config directory or the project's exists.
export function detectClient(program: string, configDirs: readonly string[], projectDir: string, context: DetectContext): Detection {
  if (runnable(program, context.env)) return { found: true, why: `\`${program}\` is on PATH` };
  const dir = [...configDirs, join(context.projectRoot, projectDir)].find((candidate) => existsSync(candidate));
  if (dir) return { found: true, why: `${dir} exists` };
  return { found: false, why: `no \`${program}\` on PATH and no ${[...configDirs, projectDir].join(' or ')}` };
}

export function detectClaude(context: DetectContext): Detection {
  return detectClient('claude', [join(homeOf(context.env), '.claude')], '.claude', context);
}

export function detectCodex(context: DetectContext): Detection {
  const home = context.env.CODEX_HOME || join(homeOf(context.env), '.codex');
  return detectClient('codex', [home], '.codex', context);
}

export function detectGit(context: DetectContext): Detection {
  return findGitInfo(context.projectRoot) ? { found: true, why: 'a git repository' } : { found: false, why: 'not a git repository' };
}

export function detectGemini(context: DetectContext): Detection {
  return detectClient('gemini', [context.env.GEMINI_CLI_HOME || join(homeOf(context.env), '.gemini')], '.gemini', context);
}

export function detectCopilot(context: DetectContext): Detection {
  return detectClient('copilot', [context.env.COPILOT_HOME || join(homeOf(context.env), '.copilot')], '.github/hooks', context);
}

export function detectOpencode(context: DetectContext): Detection {
  return detectClient('opencode', [join(context.env.XDG_CONFIG_HOME || join(homeOf(context.env), '.config'), 'opencode')], '.opencode', context);
}

export function detectPi(context: DetectContext): Detection {
  return detectClient('pi', [context.env.PI_CODING_AGENT_DIR || join(homeOf(context.env), '.pi')], '.pi', context);
}

// Cline's CLI keeps its state in ~/.cline (or $CLINE_DATA_DIR); a project's .clinerules is Cline's.
export function detectCline(context: DetectContext): Detection {
  return detectClient('cline', [context.env.CLINE_DATA_DIR || join(homeOf(context.env), '.cline')], '.clinerules', context);
}
