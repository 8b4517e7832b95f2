import { existsSync, renameSync, unlinkSync } from 'node:fs';
import { join, relative } from 'node:path';
import { IcError } from '../../core/errors';
import { parseGatePattern } from '../../core/gate-pattern';
import { resolveProject } from '../../coord/context';
import { claudeEntries, codexEntries, icProgram, retiredHooks, type IcCommand } from './entries';
import { CLAUDE_HOOK_NAMES, CODEX_HOOK_NAMES } from '../names';
import { codexConfigPath, codexHookTrusts, trustedHash, withoutTrustEntries, withTrustEntries } from './codex-trust';
import { DETECTORS, type Detection, type Target } from './detect';
import { gitExcludeFile, withExcludes } from './excludes';
import { chainMode, gitHooksDir, GIT_HOOKS, hookPaths, isGuard, readIfExists, renderGuard, type GitHookName } from './git-hook';
import { planJsonMerge, planJsonRemove, writeText, type Change } from './change';
import { icBinPath, scriptPath } from './locate';
import { checkWritableFile } from './file-types';
import { findGitInfo } from '../../store/discover';
import { AGENT_TARGETS, planAgentInstall, planAgentUninstall } from './agents';

export type { Target };
export const ALL_TARGETS: readonly Target[] = ['claude', 'codex', 'git'];
// The files each target writes that name this machine's ic (not --shared): kept out of git (excludes.ts).
const PERSONAL_FILES: Partial<Record<Target, string>> = { claude: '.claude/settings.local.json', codex: '.codex/hooks.json' };

export function detectTargets(cwd: string, env: NodeJS.ProcessEnv): { targets: Target[]; skipped: { target: Target; why: string }[]; found: Record<string, Detection> } {
  const { projectRoot } = resolveProject(cwd);
  const found: Record<string, Detection> = {};
  const candidates = [...ALL_TARGETS, ...AGENT_TARGETS];
  for (const target of candidates) found[target] = DETECTORS[target]({ projectRoot, env });
  return {
    targets: candidates.filter((target) => found[target]!.found),
    skipped: candidates.filter((target) => !found[target]!.found).map((target) => ({ target, why: found[target]!.why })),
    found,
  };
}

export interface PlanOptions {
  cwd: string;
  targets: readonly Target[];
  icBin?: string;
  /** Claude hooks in the committed .claude/settings.json, naming `ic` from PATH (no machine's path). */
  shared?: boolean;
  /** Trust recorded for the hooks: undefined (the default) Codex's trust for exactly the hooks install writes;
   * true also the folder trust of Gemini CLI and Copilot CLI (broader: the client then reads the folder's
   * other settings); false none. */
  trust?: boolean;
  /** Private staging areas: Claude's staging hooks and the git post-commit hook. */
  gitIndex?: boolean;
  /** Shell custody: agents' shell commands checked before they run (default true; install --no-shell). */
  shell?: boolean;
  /** The commit-message gate with this item pattern (a regular expression). */
  commitGate?: string;
  env?: NodeJS.ProcessEnv;
}

export interface InstallPlan {
  changes: Change[];
  /** What the person still has to do, in order. */
  nextSteps: string[];
}

export function claudeSettingsFiles(projectRoot: string): { local: string; shared: string } {
  return { local: join(projectRoot, '.claude', 'settings.local.json'), shared: join(projectRoot, '.claude', 'settings.json') };
}

export function codexHooksFile(projectRoot: string): string {
  return join(projectRoot, '.codex', 'hooks.json');
}

// Every change install would make, computed before anything is written: a bad settings file fails the
// whole run and leaves every file as it was. Re-running after a run plans nothing.
export function planInstall(options: PlanOptions): InstallPlan {
  const { projectRoot } = resolveProject(options.cwd);
  const env = options.env ?? process.env;
  const ic: IcCommand = options.shared ? { kind: 'on-path' } : { kind: 'path', bin: options.icBin ?? icBinPath(), node: process.execPath };
  const changes: Change[] = [];
  const nextSteps: string[] = [];
  if (options.targets.includes('claude')) {
    const files = claudeSettingsFiles(projectRoot);
    const [target, other] = options.shared ? [files.shared, files.local] : [files.local, files.shared];
    changes.push(...planJsonMerge(target, claudeEntries(ic, { gitIndex: Boolean(options.gitIndex), shell: options.shell !== false }), retiredHooks(options).claude));
    // One place only, or every hook would run twice; a committed file keeps a teammate-safe (shared) entry.
    if (options.shared || !sharedFormOnly(readIfExists(other))) changes.push(...planJsonRemove(other, CLAUDE_HOOK_NAMES));
    nextSteps.push(
      options.shared
        ? `Claude Code: commit ${relative(projectRoot, target)}; every teammate needs \`ic\` on PATH (npm install -g, or a project bin directory on PATH) for the hooks to run.`
        : `Claude Code: ${relative(projectRoot, target)} is personal (Claude Code keeps it out of git); do not commit it. Use --shared for a file the team commits.`,
      `Claude Code status line (optional): add "statusLine": ${JSON.stringify({ type: 'command', command: statuslineCommand(ic) })} to your settings.`,
    );
  }
  if (options.targets.includes('codex')) {
    const file = codexHooksFile(projectRoot);
    const merge = planJsonMerge(file, codexEntries(ic, { shell: options.shell !== false }), retiredHooks(options).codex);
    changes.push(...merge);
    const text = merge.length > 0 ? merge[0]!.text : readIfExists(file);
    const trusts = text === undefined ? [] : codexHookTrusts(file, text, CODEX_HOOK_NAMES);
    const config = codexConfigPath(env);
    nextSteps.push(
      options.shared
        ? `Codex: commit ${relative(projectRoot, file)}; it calls \`ic\` from PATH.`
        : `Codex: ${relative(projectRoot, file)} names this machine's ic; do not commit it (or install with --shared).`,
    );
    const before = readIfExists(config) ?? '';
    const trusted = trusts.length > 0 && trusts.every((trust) => trustedHash(before, trust.key) === trust.hash);
    if (options.trust !== false && !trusted) {
      // Codex runs a project's hooks only once each is trusted; install trusts exactly the hooks it wrote.
      const after = withTrustEntries(before, trusts);
      changes.push({ file: config, action: existsSync(config) ? 'updated' : 'created', text: after, apply: () => writeText(config, after) });
      nextSteps.push(
        `Codex: ic's hooks are trusted in ${config} (only those; --no-trust leaves that to you); reinstalling ic elsewhere changes their hash, so run \`ic coord install\` again after that.`,
      );
    } else if (!trusted) {
      nextSteps.push(
        `Codex: Codex runs project hooks only once you trust them, and skips untrusted ones silently. Trust them in Codex (\`/hooks\`), or run \`ic coord install --codex\` without --no-trust to record the trust in ${config}.`,
      );
    }
  }
  if (options.targets.includes('git')) {
    changes.push(...planGitInstall(projectRoot, options.icBin ?? icBinPath()));
    changes.push(...planGitInstall(projectRoot, options.icBin ?? icBinPath(), 'post-checkout')); // worktrees added later get the agent hooks
    changes.push(...planGitInstall(projectRoot, options.icBin ?? icBinPath(), 'reference-transaction')); // the guard again where --no-verify skipped pre-commit
    nextSteps.push('Aider: set `git-commit-verify: true` in .aider.conf.yml so its commits go through the guard.');
  }
  if (options.gitIndex) {
    changes.push(...planGitInstall(projectRoot, options.icBin ?? icBinPath(), 'post-commit'));
    if (!options.targets.includes('git')) changes.push(...planGitInstall(projectRoot, options.icBin ?? icBinPath(), 'reference-transaction')); // --no-verify cannot skip it
    nextSteps.push('Private staging areas: Claude sessions get theirs from SessionStart; other agents run `export GIT_INDEX_FILE="$(ic coord hook git-index-path)"` with IC_OWNER set.');
  }
  if (options.commitGate !== undefined) {
    parseGatePattern(options.commitGate); // before anything is written: a pattern outside its restricted syntax would refuse or hang every commit
    changes.push(...planGitInstall(projectRoot, options.icBin ?? icBinPath(), 'commit-msg', options.commitGate));
  }
  const agents = planAgentInstall({ projectRoot, targets: options.targets, ic, trust: options.trust === true, env }); // Gemini, Copilot, OpenCode
  changes.push(...agents.changes);
  nextSteps.push(...agents.nextSteps);
  const personal = personalFiles(options.targets);
  changes.push(...planExcludes(projectRoot, [...(options.shared ? [] : personal), ...agents.excluded], options.shared ? personal.filter((file) => file !== PERSONAL_FILES.claude) : []));
  checkTargets(changes, env);
  return { changes, nextSteps };
}

function personalFiles(targets: readonly Target[]): string[] {
  return targets.map((target) => PERSONAL_FILES[target]).filter((file): file is string => file !== undefined);
}

// Our lines in the repository's exclude file (excludes.ts); nothing outside git.
function planExcludes(projectRoot: string, add: readonly string[], remove: readonly string[]): Change[] {
  const file = gitExcludeFile(projectRoot);
  if (file === undefined) return [];
  const before = readIfExists(file);
  const after = withExcludes(before, add, remove);
  if (after === (before ?? '')) return [];
  if (after === null) return [{ file, action: 'removed', apply: () => unlinkSync(file) }];
  return [{ file, action: before === undefined ? 'created' : 'updated', text: after, apply: () => writeText(file, after) }];
}

// Every file a change writes, checked for its type before anything is written (file-types.ts).
function checkTargets(changes: readonly Change[], env: NodeJS.ProcessEnv): void {
  const codexHome = env.CODEX_HOME;
  for (const change of changes) checkWritableFile(change.file, (path) => (codexHome && path === codexHome ? ' (it is $CODEX_HOME)' : ''));
}

function statuslineCommand(ic: IcCommand): string {
  return `${icProgram(ic)} coord statusline`;
}

// Does this settings text hold none of our entries that name a machine's path (only `ic coord hook …`, or none)?
function sharedFormOnly(text: string | undefined): boolean {
  return text === undefined || !/'[^']*' coord hook claude-/.test(text);
}

export function planUninstall(options: PlanOptions): Change[] {
  const { projectRoot } = resolveProject(options.cwd);
  const changes: Change[] = [];
  if (options.targets.includes('claude')) {
    const files = claudeSettingsFiles(projectRoot);
    changes.push(...planJsonRemove(files.local, CLAUDE_HOOK_NAMES, true), ...planJsonRemove(files.shared, CLAUDE_HOOK_NAMES, true));
  }
  if (options.targets.includes('codex')) {
    const file = codexHooksFile(projectRoot);
    changes.push(...planTrustRemoval(file, options.env ?? process.env), ...planJsonRemove(file, CODEX_HOOK_NAMES));
  }
  if (options.targets.includes('git')) for (const name of Object.keys(GIT_HOOKS) as GitHookName[]) changes.push(...planGitUninstall(projectRoot, name));
  const agents = planAgentUninstall(projectRoot, options.targets);
  changes.push(...agents.changes);
  changes.push(...planExcludes(projectRoot, [], [...personalFiles(options.targets), ...agents.unexcluded]));
  checkTargets(changes, options.env ?? process.env);
  return changes;
}

// The trust entries install --trust recorded for our Codex hooks (their keys come from hooks.json, so this
// is planned before the hooks go).
function planTrustRemoval(hooksFile: string, env: NodeJS.ProcessEnv): Change[] {
  const text = readIfExists(hooksFile);
  const config = codexConfigPath(env);
  const before = readIfExists(config);
  if (text === undefined || before === undefined) return [];
  const after = withoutTrustEntries(
    before,
    codexHookTrusts(hooksFile, text, CODEX_HOOK_NAMES).map((trust) => trust.key),
  );
  if (after === before) return [];
  if (after === '') return [{ file: config, action: 'removed', apply: () => unlinkSync(config) }];
  return [{ file: config, action: 'updated', text: after, apply: () => writeText(config, after) }];
}

function requireGit(projectRoot: string): string {
  if (!findGitInfo(projectRoot)) throw new IcError('INVALID_INPUT', `${projectRoot} is not in a git repository, so there is no commit to guard; pass --claude or --codex`);
  return gitHooksDir(projectRoot);
}

// Our hook becomes `name`; a hook that was there is kept as `name`.ic-backup and still runs first.
function planGitInstall(projectRoot: string, icBin: string, name: GitHookName = 'pre-commit', gatePattern?: string): Change[] {
  const { hook, backup } = hookPaths(requireGit(projectRoot), name);
  const current = readIfExists(hook);
  const previous = current !== undefined && !isGuard(current) ? current : readIfExists(backup);
  const wanted = renderGuard(readIfExists(scriptPath(GIT_HOOKS[name])) ?? '', icBin, chainMode(previous), gatePattern);
  if (current === wanted) return [];
  if (current === undefined) return [{ file: hook, action: 'created', apply: () => writeText(hook, wanted, 0o755) }];
  if (isGuard(current)) return [{ file: hook, action: 'updated', apply: () => writeText(hook, wanted, 0o755) }];
  if (existsSync(backup)) {
    throw new IcError('INVALID_INPUT', `${hook} is not ic's guard and ${backup} already exists; move one of them away, then run the installer again`, { file: hook });
  }
  return [
    { file: backup, action: 'backed_up', apply: () => renameSync(hook, backup) },
    { file: hook, action: 'created', apply: () => writeText(hook, wanted, 0o755) },
  ];
}

// Removes only our guard; the hook it replaced comes back byte for byte (a rename, so its mode too).
function planGitUninstall(projectRoot: string, name: GitHookName): Change[] {
  if (!findGitInfo(projectRoot)) return [];
  const { hook, backup } = hookPaths(gitHooksDir(projectRoot), name);
  const current = readIfExists(hook);
  if (current === undefined || !isGuard(current)) return [];
  if (existsSync(backup)) return [{ file: hook, action: 'restored', apply: () => renameSync(backup, hook) }];
  return [{ file: hook, action: 'removed', apply: () => unlinkSync(hook) }];
}
