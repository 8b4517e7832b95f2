import { chmodSync, existsSync, mkdirSync, readdirSync, renameSync, rmdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { IcError } from '../../core/errors';
import { resolveProject } from '../../coord/context';
import { CLAUDE_HOOK_NAMES, CODEX_HOOK_NAMES, claudeEntries, codexEntries } from './entries';
import { chainMode, gitHooksDir, hookPaths, isGuard, readIfExists, renderGuard } from './git-hook';
import { mergeHookEntries, removeHookEntries, type HookEntry } from './json-hooks';
import { icBinPath, scriptPath } from './locate';
import { findGitInfo } from '../../store/discover';

export type Target = 'claude' | 'codex' | 'git';
export const ALL_TARGETS: readonly Target[] = ['claude', 'codex', 'git'];

export type Action = 'created' | 'updated' | 'removed' | 'restored' | 'backed_up';

export interface Change {
  file: string;
  action: Action;
  apply: () => void;
}

export interface PlanOptions {
  cwd: string;
  targets: readonly Target[];
  icBin?: string;
}

// Every change install would make, computed before anything is written: a bad settings file fails the
// whole run and leaves every file as it was. Re-running after a run plans nothing.
export function planInstall(options: PlanOptions): Change[] {
  const { projectRoot } = resolveProject(options.cwd);
  const icBin = options.icBin ?? icBinPath();
  const changes: Change[] = [];
  if (options.targets.includes('claude')) changes.push(...planJsonMerge(join(projectRoot, '.claude', 'settings.json'), claudeEntries(icBin)));
  if (options.targets.includes('codex')) changes.push(...planJsonMerge(join(projectRoot, '.codex', 'hooks.json'), codexEntries(icBin)));
  if (options.targets.includes('git')) changes.push(...planGitInstall(projectRoot, icBin));
  return changes;
}

export function planUninstall(options: PlanOptions): Change[] {
  const { projectRoot } = resolveProject(options.cwd);
  const changes: Change[] = [];
  if (options.targets.includes('claude')) changes.push(...planJsonRemove(join(projectRoot, '.claude', 'settings.json'), CLAUDE_HOOK_NAMES));
  if (options.targets.includes('codex')) changes.push(...planJsonRemove(join(projectRoot, '.codex', 'hooks.json'), CODEX_HOOK_NAMES));
  if (options.targets.includes('git')) changes.push(...planGitUninstall(projectRoot));
  return changes;
}

function planJsonMerge(file: string, entries: HookEntry[]): Change[] {
  const before = readIfExists(file);
  const after = mergeHookEntries(before, entries, file);
  if (after === before) return [];
  return [{ file, action: before === undefined ? 'created' : 'updated', apply: () => writeText(file, after) }];
}

function planJsonRemove(file: string, names: readonly string[]): Change[] {
  const before = readIfExists(file);
  const after = removeHookEntries(before, names, file);
  if (after === undefined || after === before) return [];
  if (after === null) return [{ file, action: 'removed', apply: () => removeFileAndEmptyDir(file) }];
  return [{ file, action: 'updated', apply: () => writeText(file, after) }];
}

function requireGit(projectRoot: string): string {
  if (!findGitInfo(projectRoot)) throw new IcError('INVALID_INPUT', `${projectRoot} is not in a git repository, so there is no commit to guard; pass --claude or --codex`);
  return gitHooksDir(projectRoot);
}

// The guard becomes pre-commit; a hook that was there is kept as pre-commit.ic-backup and still runs first.
function planGitInstall(projectRoot: string, icBin: string): Change[] {
  const { hook, backup } = hookPaths(requireGit(projectRoot));
  const current = readIfExists(hook);
  const previous = current !== undefined && !isGuard(current) ? current : readIfExists(backup);
  const wanted = renderGuard(readIfExists(scriptPath('git-pre-commit.sh')) ?? '', icBin, chainMode(previous));
  if (current === wanted) return [];
  if (current === undefined) return [{ file: hook, action: 'created', apply: () => writeExecutable(hook, wanted) }];
  if (isGuard(current)) return [{ file: hook, action: 'updated', apply: () => writeExecutable(hook, wanted) }];
  if (existsSync(backup)) {
    throw new IcError('INVALID_INPUT', `${hook} is not ic's guard and ${backup} already exists; move one of them away, then run the installer again`, { file: hook });
  }
  return [
    { file: backup, action: 'backed_up', apply: () => renameSync(hook, backup) },
    { file: hook, action: 'created', apply: () => writeExecutable(hook, wanted) },
  ];
}

// Removes only our guard; the hook it replaced comes back byte for byte (a rename, so its mode too).
function planGitUninstall(projectRoot: string): Change[] {
  if (!findGitInfo(projectRoot)) return [];
  const { hook, backup } = hookPaths(gitHooksDir(projectRoot));
  const current = readIfExists(hook);
  if (current === undefined || !isGuard(current)) return [];
  if (existsSync(backup)) return [{ file: hook, action: 'restored', apply: () => renameSync(backup, hook) }];
  return [{ file: hook, action: 'removed', apply: () => unlinkSync(hook) }];
}

function writeText(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

function writeExecutable(file: string, text: string): void {
  writeText(file, text);
  chmodSync(file, 0o755);
}

// Deletes a config file the installer emptied, and its directory when nothing else is in it.
function removeFileAndEmptyDir(file: string): void {
  unlinkSync(file);
  const dir = dirname(file);
  if (readdirSync(dir).length === 0) rmdirSync(dir);
}
