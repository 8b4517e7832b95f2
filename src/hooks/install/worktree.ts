import { resolveProject } from '../../coord/context';
import { codexConfigPath, codexHookTrusts, trustedHash } from './codex-trust';
import { CLAUDE_HOOK_NAMES, CODEX_HOOK_NAMES } from '../names';
import { readIfExists } from './git-hook';
import { commandPrograms, ourCommands } from './hook-commands';
import { claudeSettingsFiles, codexHooksFile, planInstall, type Target } from './plan';

// Linked worktrees (docs/sessions.md, "Worktrees"). Claude's settings.local.json and Codex's hooks.json
// live in a work tree, untracked, so a worktree added later has none of ic's agent hooks, and its agents
// would run unchecked. git runs post-checkout (installed with --git, in the common hooks directory) in the
// new work tree on `git worktree add`: it installs there what the main work tree has.

export interface AgentHooks {
  claude: boolean;
  codex: boolean;
  /** The ic the personal hooks name (absolute path), when they name one. */
  icBin?: string;
  codexTrusted: boolean;
  gitIndex: boolean;
}

// Which agents' ic hooks a work tree has (personal files only: shared ones are tracked and checked out).
export function agentHooksIn(root: string, env: NodeJS.ProcessEnv): AgentHooks {
  const claudeCommands = ourCommands(readIfExists(claudeSettingsFiles(root).local), CLAUDE_HOOK_NAMES);
  const sharedClaude = ourCommands(readIfExists(claudeSettingsFiles(root).shared), CLAUDE_HOOK_NAMES);
  const codexFile = codexHooksFile(root);
  const codexText = readIfExists(codexFile);
  const codexCommands = ourCommands(codexText, CODEX_HOOK_NAMES);
  const program = [...claudeCommands, ...codexCommands].map((command) => commandPrograms(command).at(-1)!).find((p) => p.includes('/'));
  const config = readIfExists(codexConfigPath(env)) ?? '';
  const trusts = codexText === undefined ? [] : codexHookTrusts(codexFile, codexText, CODEX_HOOK_NAMES);
  return {
    claude: claudeCommands.length > 0 || sharedClaude.length > 0,
    codex: codexCommands.length > 0,
    ...(program ? { icBin: program } : {}),
    codexTrusted: trusts.length > 0 && trusts.every((trust) => trustedHash(config, trust.key) === trust.hash),
    gitIndex: claudeCommands.some((command) => command.includes('claude-git-index')),
  };
}

// post-checkout in a new linked worktree: the main work tree's personal agent hooks (and Codex trust) here too.
export function installInWorktree(cwd: string, env: NodeJS.ProcessEnv): string[] {
  const project = resolveProject(cwd);
  const main = project.claimScope;
  if (main === project.projectRoot) return [];
  const there = agentHooksIn(main, env);
  const here = agentHooksIn(project.projectRoot, env);
  const targets: Target[] = [];
  if (there.claude && !here.claude && ourCommands(readIfExists(claudeSettingsFiles(main).local), CLAUDE_HOOK_NAMES).length > 0) targets.push('claude');
  if (there.codex && !here.codex) targets.push('codex');
  if (targets.length === 0 || there.icBin === undefined) return [];
  const plan = planInstall({ cwd: project.projectRoot, targets, icBin: there.icBin, trust: there.codexTrusted, gitIndex: there.gitIndex, env });
  for (const change of plan.changes) change.apply();
  return plan.changes.map((change) => change.file);
}
