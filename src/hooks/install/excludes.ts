import { join } from 'node:path';
import { findGitInfo } from '../../store/discover';

// Files install writes for this machine only (hooks naming this machine's ic) are kept out of `git add -A`
// by lines in the repository's own exclude file: `<git common dir>/info/exclude`, which every worktree
// reads and nobody commits. Our lines sit in one marked block, so uninstall takes out exactly what
// install put in. Outside git nothing can be staged, so there is nothing to exclude.
export const EXCLUDE_BEGIN = '# >>> ic coord install: personal files kept out of git (`ic coord uninstall` removes this block)';
// The same, when the file did not end in a line break and install added one before the block.
const EXCLUDE_BEGIN_JOINED = `${EXCLUDE_BEGIN} +newline`;
export const EXCLUDE_END = '# <<< ic coord install';

export function gitExcludeFile(projectRoot: string): string | undefined {
  const git = findGitInfo(projectRoot);
  return git ? join(git.commonDir, 'info', 'exclude') : undefined;
}

function findBlock(text: string): { start: number; end: number; joined: boolean; paths: string[] } | undefined {
  const lines = text.split('\n');
  const begin = lines.findIndex((line) => line === EXCLUDE_BEGIN || line === EXCLUDE_BEGIN_JOINED);
  if (begin < 0) return undefined;
  const close = lines.indexOf(EXCLUDE_END, begin);
  if (close < 0) return undefined;
  const offset = (index: number) => lines.slice(0, index).reduce((sum, line) => sum + line.length + 1, 0);
  const end = Math.min(text.length, offset(close + 1));
  return { start: offset(begin), end, joined: lines[begin] === EXCLUDE_BEGIN_JOINED, paths: lines.slice(begin + 1, close).map((line) => line.replace(/^\//, '')) };
}

function renderBlock(paths: readonly string[], joined: boolean): string {
  return `${joined ? EXCLUDE_BEGIN_JOINED : EXCLUDE_BEGIN}\n${paths.map((path) => `/${path}`).join('\n')}\n${EXCLUDE_END}\n`;
}

// The exclude text with `add` in our block and `remove` out of it; the block goes when it is empty, and
// null means the file held nothing but the block (install created it: delete it again).
export function withExcludes(text: string | undefined, add: readonly string[], remove: readonly string[]): string | null {
  const original = text ?? '';
  const block = findBlock(original);
  const current = block?.paths ?? [];
  const paths = [...current.filter((path) => !remove.includes(path)), ...add.filter((path) => !current.includes(path) && !remove.includes(path))];
  if (block && paths.join('\n') === current.join('\n')) return original;
  if (!block && paths.length === 0) return original;
  if (block) {
    const before = block.joined ? original.slice(0, block.start - 1) : original.slice(0, block.start);
    const rest = original.slice(block.end);
    if (paths.length === 0) return before === '' && rest === '' && text !== undefined && !block.joined ? null : before + rest;
    return original.slice(0, block.start) + renderBlock(paths, block.joined) + rest;
  }
  const joined = original !== '' && !original.endsWith('\n');
  return `${original}${joined ? '\n' : ''}${renderBlock(paths, joined)}`;
}
