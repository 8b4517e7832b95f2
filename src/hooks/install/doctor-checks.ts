import type { HealthCheck } from '../../store/health';
import { codexConfigPath, codexHookTrusts, trustedHash } from './codex-trust';
import { CLAUDE_HOOK_NAMES, CODEX_HOOK_NAMES } from '../names';
import { GIT_HOOKS, gitHooksDir, hookPaths, isGuard, readIfExists, type GitHookName } from './git-hook';
import { findGitInfo } from '../../store/discover';
import { commandCheck, commandPrograms, ourCommands, runnable } from './hook-commands';
import { claudeSettingsFiles, codexHooksFile } from './plan';
import { INDEX_IDLE_MS, indexDirOf, listIndexFiles } from '../../coord/private-index';
import { agentHookChecks } from './agent-doctor';
import { resolveProject } from '../../coord/context';
import { CLIENT_NAMES } from './clients';
import { agentHooksIn } from './worktree';

// `ic doctor`'s look at the installed agent hooks: does each one name an ic that runs here, and has Codex
// been told to trust its hooks (it skips untrusted ones without a word)? Files without our hooks add nothing.
export function hookChecks(projectRoot: string, env: NodeJS.ProcessEnv): HealthCheck[] {
  const checks: HealthCheck[] = [];
  const claude = claudeSettingsFiles(projectRoot);
  for (const file of [claude.local, claude.shared]) {
    const commands = ourCommands(readIfExists(file), CLAUDE_HOOK_NAMES);
    if (commands.length > 0) checks.push(commandCheck('claude_hooks', file, commands, env));
  }
  const codexFile = codexHooksFile(projectRoot);
  const codexText = readIfExists(codexFile);
  const codexCommands = ourCommands(codexText, CODEX_HOOK_NAMES);
  if (codexText !== undefined && codexCommands.length > 0) {
    checks.push(commandCheck('codex_hooks', codexFile, codexCommands, env));
    checks.push(codexTrustCheck(codexFile, codexText, env));
  }
  checks.push(...agentHookChecks(projectRoot, env)); // Gemini CLI, Copilot CLI, OpenCode
  const more = [gitGuardCheck(projectRoot, env), stagingCheck(projectRoot), activeHooksCheck(projectRoot, env)];
  return [...checks, ...more.filter((check): check is HealthCheck => check !== undefined)];
}

// Which agents' ic hooks are active in this work tree (docs/sessions.md, "Worktrees"). A linked worktree
// lacking hooks its main work tree has is a warning: agents started there would not be coordinated.
function activeHooksCheck(projectRoot: string, env: NodeJS.ProcessEnv): HealthCheck | undefined {
  const named = (has: (agent: 'claude' | 'codex') => boolean) => (['claude', 'codex'] as const).filter(has).map((agent) => CLIENT_NAMES[agent]);
  const here = agentHooksIn(projectRoot, env);
  const names = named((agent) => here[agent]);
  const detail = `agent hooks active in ${projectRoot}: ${names.length > 0 ? names.join(', ') : 'none'}`;
  let main: string | undefined;
  try {
    main = resolveProject(projectRoot).claimScope;
  } catch {
    main = undefined;
  }
  if (main === undefined || main === projectRoot) return names.length > 0 ? { name: 'agent_hooks', ok: true, detail } : undefined; // a plain repository without hooks: nothing to say
  const there = agentHooksIn(main, env);
  const missing = named((agent) => there[agent] && !here[agent]);
  if (missing.length === 0) return { name: 'agent_hooks', ok: true, detail: `${detail} (a linked worktree of ${main})` };
  return {
    name: 'agent_hooks',
    ok: false,
    severity: 'warning',
    detail: `${detail}; the main work tree ${main} has ${missing.join(' and ')} hooks this linked worktree lacks, so agents started here are not coordinated`,
    fix: `run \`ic coord install\` in this worktree (worktrees added after \`ic coord install --git\` get them by themselves)`,
  };
}

// Private staging areas (install --git-index): how many index files there are, and whether some look
// abandoned (untouched for 24 h: a session that ended without its SessionEnd hook). Only a count here;
// `coord sweep` also asks the database whether their owners are still active before deleting any.
function stagingCheck(projectRoot: string): HealthCheck | undefined {
  const dir = indexDirOf(projectRoot);
  const files = dir === undefined ? [] : listIndexFiles(dir);
  if (files.length === 0) return undefined;
  const idle = files.filter((file) => Date.now() - file.touched >= INDEX_IDLE_MS).length;
  const detail = `${files.length} private staging area${files.length === 1 ? '' : 's'} in ${dir}${idle > 0 ? `, ${idle} untouched for 24 h` : ''}`;
  return idle > 0
    ? { name: 'staging_areas', ok: false, severity: 'warning', detail, fix: 'run `coord sweep` (it deletes those whose sessions show no activity for 24 h)' }
    : { name: 'staging_areas', ok: true, detail };
}

// The git hooks install wrote (pre-commit guard, post-commit, commit-msg gate): each executable, each
// naming an ic that runs here. Nothing when none is installed.
function gitGuardCheck(projectRoot: string, env: NodeJS.ProcessEnv): HealthCheck | undefined {
  if (!findGitInfo(projectRoot)) return undefined;
  let dir: string;
  try {
    dir = gitHooksDir(projectRoot);
  } catch {
    return undefined;
  }
  const problems: string[] = [];
  const installed: string[] = [];
  for (const name of Object.keys(GIT_HOOKS) as GitHookName[]) {
    const { hook } = hookPaths(dir, name);
    const text = readIfExists(hook);
    if (text === undefined || !isGuard(text)) continue;
    installed.push(name);
    const quoted = /^ic_bin=('(?:[^']|'\\'')*'|\S+)$/m.exec(text)?.[1] ?? 'ic';
    const program = commandPrograms(quoted).at(-1)!;
    if (!runnable(hook, env)) problems.push(`${hook} is not executable`);
    else if (!runnable(program, env)) problems.push(`${hook} calls ${JSON.stringify(program)}, which does not run here`);
  }
  if (installed.length === 0) return undefined;
  if (problems.length === 0) return { name: 'git_guard', ok: true, detail: `${installed.join(', ')} in ${dir}: call a working ic` };
  return { name: 'git_guard', ok: false, severity: 'warning', detail: `${problems.join('; ')}: commits go unchecked`, fix: 'run `ic coord install --git` again from the ic you use now' };
}

function codexTrustCheck(file: string, text: string, env: NodeJS.ProcessEnv): HealthCheck {
  const trusts = codexHookTrusts(file, text, CODEX_HOOK_NAMES);
  const config = codexConfigPath(env);
  const configText = readIfExists(config) ?? '';
  const untrusted = trusts.filter((trust) => trustedHash(configText, trust.key) !== trust.hash);
  if (untrusted.length === 0) return { name: 'codex_trust', ok: true, detail: `Codex trusts ic's hooks in ${file} (${config})` };
  const changed = untrusted.some((trust) => trustedHash(configText, trust.key) !== undefined);
  return {
    name: 'codex_trust',
    ok: false,
    severity: 'warning',
    detail: `${untrusted.length} of ic's Codex hooks in ${file} ${changed ? 'changed since they were trusted' : 'are not trusted'} in ${config}: Codex skips them silently, so its edits are not coordinated`,
    fix: 'run `ic coord install --codex` (it records the trust for exactly its hooks), or trust them in Codex with /hooks',
  };
}
