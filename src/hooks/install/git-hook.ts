import { execFileSync } from 'node:child_process';
import { isAbsolute, join, resolve } from 'node:path';
import { singleQuoted } from '../../core/shell';

export const GUARD_MARKER = '# ic-commit-guard';
export const BACKUP_SUFFIX = '.ic-backup';

// Where git runs hooks from: `git rev-parse --git-path hooks` honours core.hooksPath (husky) and linked
// worktrees (their hooks live in the common directory).
export function gitHooksDir(top: string): string {
  const out = execFileSync('git', ['rev-parse', '--git-path', 'hooks'], { cwd: top, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).replace(/\n$/, '');
  return isAbsolute(out) ? out : resolve(top, out);
}

export function isGuard(text: string): boolean {
  return text.includes(GUARD_MARKER);
}

// How the replaced hook is called: directly, or (husky 9 stubs, which find the user's script by their
// own file name) sourced with $0 still naming `pre-commit`.
export function chainMode(previous: string | undefined): 'exec' | 'same-name' {
  if (previous === undefined) return 'exec';
  return /^\s*\.\s+"?\$(\{0%\/\*\}|\(dirname (-- )?"\$0"\))\/h"?\s*$/m.test(previous) ? 'same-name' : 'exec';
}

// The installed hook: the template with the bin path (single-quoted), the chain mode and (commit-msg) the
// item pattern filled in.
export function renderGuard(template: string, icBin: string, mode: 'exec' | 'same-name', gatePattern?: string): string {
  const filled = template.replace(/^ic_bin=.*$/m, () => `ic_bin=${singleQuoted(icBin)}`).replace(/^chain_mode=.*$/m, () => `chain_mode=${singleQuoted(mode)}`);
  return gatePattern === undefined ? filled : filled.replace(/^gate_pattern=.*$/m, () => `gate_pattern=${singleQuoted(gatePattern)}`);
}

// The git hooks ic installs, each from its template in scripts/.
export const GIT_HOOKS = {
  'pre-commit': 'git-pre-commit.sh',
  'post-commit': 'git-post-commit.sh',
  'commit-msg': 'git-commit-msg.sh',
  'reference-transaction': 'git-reference-transaction.sh',
  'post-checkout': 'git-post-checkout.sh',
} as const;
export type GitHookName = keyof typeof GIT_HOOKS;

// Never blocks and never throws: a missing, unreadable or non-regular file (a FIFO, a directory) reads as
// none; the installer then refuses to write over it (file-types.ts, checkWritableFile).
export { readRegularFile as readIfExists } from '../../store/regular-file';

export function hookPaths(hooksDir: string, name: GitHookName = 'pre-commit'): { hook: string; backup: string } {
  const hook = join(hooksDir, name);
  return { hook, backup: `${hook}${BACKUP_SUFFIX}` };
}
