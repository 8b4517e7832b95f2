import { has, parseArgs } from './args';
import type { Word } from './lex';
import { patchTargets } from './patch-files';
import { addTree, addWordTarget, resolveDir, unreadable, type VerbContext } from './targets';

// git's verbs that write the work tree. A pathspec names its files (a directory, or `.`, every file under
// it); a verb with no pathspec that rewrites the whole tree (`git stash`, `git reset --hard`, a branch
// switch, a merge) names every file of the repository.

// Global options before the verb that take a value.
const GLOBAL_WITH_VALUE = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--exec-path', '--config-env']);

// Verbs that move the whole work tree to other commits: every file of the repository.
const WHOLE_REPO = new Set(['merge', 'pull', 'rebase', 'cherry-pick', 'revert', 'am']);

export function gitWrites(args: readonly Word[], context: VerbContext): void {
  let cwd = context.cwd;
  let i = 0;
  for (; i < args.length; i++) {
    const text = args[i]!.value;
    if (text === undefined) return unreadable(context.sink, 'a git option ic cannot read before it runs');
    if (!text.startsWith('-')) break;
    const name = text.includes('=') ? text.slice(0, text.indexOf('=')) : text;
    if (name === '--work-tree' || name === '--git-dir') return unreadable(context.sink, `git ${name}`);
    if (GLOBAL_WITH_VALUE.has(name) && !text.includes('=')) {
      const dir = args[++i]?.value;
      if (text === '-C') cwd = dir === undefined ? undefined : resolveDir(dir, cwd);
    }
  }
  const verb = args[i]?.value;
  const rest = args.slice(i + 1);
  const sub: VerbContext = { ...context, cwd };
  if (verb === undefined) return;
  if (WHOLE_REPO.has(verb)) {
    if (!rest.some((word) => word.value === '--abort' || word.value === '--quit' || word.value === '--show-current-patch')) addTree(sub.sink, cwd, true);
    return;
  }
  switch (verb) {
    case 'checkout':
      return checkout(rest, sub);
    case 'switch': {
      const parsed = parseArgs(rest, { short: 'cC', long: ['create', 'force-create', 'orphan', 'track', 'conflict'] });
      if (!has(parsed, '-c', '-C', '--create', '--force-create') || parsed.operands.length > 0) addTree(sub.sink, cwd, true);
      return;
    }
    case 'restore': {
      const parsed = parseArgs(rest, { short: 's', long: ['source', 'pathspec-from-file', 'conflict'] });
      if (has(parsed, '-S', '--staged') && !has(parsed, '-W', '--worktree')) return; // the index only
      return pathspecs(parsed.operands, sub, has(parsed, '--pathspec-from-file'));
    }
    case 'reset': {
      const parsed = parseArgs(rest, { long: ['pathspec-from-file'] });
      if (has(parsed, '--hard', '--keep', '--merge')) addTree(sub.sink, cwd, true);
      return; // --soft / --mixed / paths: the index only
    }
    case 'stash':
      return stash(rest, sub);
    case 'clean': {
      const parsed = parseArgs(rest, { short: 'e', long: ['exclude'] });
      if (has(parsed, '-n', '--dry-run')) return;
      if (parsed.operands.length === 0)
        addTree(sub.sink, cwd, false); // from the current directory down
      else pathspecs(parsed.operands, sub, false);
      return;
    }
    case 'apply':
      return apply(rest, sub);
    case 'rm': {
      const parsed = parseArgs(rest, { long: ['pathspec-from-file'] });
      if (has(parsed, '--cached', '-n', '--dry-run')) return;
      return pathspecs(parsed.operands, sub, has(parsed, '--pathspec-from-file'));
    }
    case 'mv': {
      const parsed = parseArgs(rest);
      if (has(parsed, '-n', '--dry-run')) return;
      return pathspecs(parsed.operands, sub, false);
    }
  }
}

// `git checkout [TREE-ISH] [--] PATHS`: the paths; `git checkout BRANCH`: a switch, every file.
function checkout(rest: readonly Word[], context: VerbContext): void {
  const dashdash = rest.findIndex((word) => word.value === '--');
  const parsed = parseArgs(dashdash === -1 ? rest : rest.slice(0, dashdash), { short: 'bBU', long: ['orphan', 'conflict', 'pathspec-from-file', 'track'] });
  if (has(parsed, '--pathspec-from-file')) return pathspecs([], context, true);
  if (dashdash !== -1) return pathspecs(rest.slice(dashdash + 1), context, false);
  const [first, ...others] = parsed.operands;
  if (first === undefined) return; // `git checkout` alone reports; `-b new` keeps the work tree as it is
  // Without `--`, a first word that is a path (or `.`, or a glob) is a pathspec; otherwise it is a commit.
  if (looksLikePath(first, context)) return pathspecs(parsed.operands, context, false);
  if (others.length > 0) return pathspecs(others, context, false);
  addTree(context.sink, context.cwd, true); // a branch switch (or `-b new START`): every file may change
}

function looksLikePath(word: Word, context: VerbContext): boolean {
  const text = word.value;
  if (text === undefined) return false;
  if (word.glob || text === '.' || text.startsWith('./') || text.startsWith('/') || text.startsWith(':')) return true;
  const path = resolveDir(text, context.cwd);
  return path !== undefined && context.disk.exists(path);
}

function stash(rest: readonly Word[], context: VerbContext): void {
  const first = rest[0]?.value;
  const readOnly = new Set(['list', 'show', 'drop', 'clear', 'create', 'store']);
  if (first !== undefined && readOnly.has(first)) return;
  if (first === 'pop' || first === 'apply' || first === 'branch') return addTree(context.sink, context.cwd, true);
  const args = first === 'push' || first === 'save' ? rest.slice(1) : rest;
  const parsed = parseArgs(args, { short: 'm', long: ['message', 'pathspec-from-file'] });
  if (first === 'push' && parsed.operands.length > 0) return pathspecs(parsed.operands, context, has(parsed, '--pathspec-from-file'));
  addTree(context.sink, context.cwd, true);
}

function apply(rest: readonly Word[], context: VerbContext): void {
  const parsed = parseArgs(rest, { short: 'pC', long: ['exclude', 'include', 'directory', 'whitespace', 'build-fake-ancestor'] });
  if (has(parsed, '--cached') || (has(parsed, '--check', '--stat', '--numstat', '--summary') && !has(parsed, '--apply'))) return;
  const strip = parsed.values.get('-p')?.at(-1);
  const files = parsed.operands.filter((word) => word.value !== '-');
  const texts = files.length === 0 ? [context.stdin] : files.map((word) => (word.value === undefined ? undefined : context.disk.readFile(resolveDir(word.value, context.cwd) ?? word.value)));
  for (const text of texts) {
    if (text === undefined) context.sink.unreadable.push('a patch ic cannot read before it runs');
    else patchTargets(context.sink, text, context.cwd, context.disk, strip === undefined ? 1 : Number(strip));
  }
}

// Pathspecs: files, directories (every file under them), `.`, globs; magic (`:(…)`) is not read.
function pathspecs(words: readonly Word[], context: VerbContext, fromFile: boolean): void {
  if (fromFile) return unreadable(context.sink, 'git --pathspec-from-file');
  for (const word of words) {
    if (word.value?.startsWith(':')) {
      if (word.value === ':/' || word.value === ':') addTree(context.sink, context.cwd, true);
      else context.sink.unreadable.push(`a git pathspec with magic: ${JSON.stringify(word.value)}`);
      continue;
    }
    addWordTarget(context.sink, word, context.cwd, context.disk, { tree: true });
  }
}
