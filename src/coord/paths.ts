import { existsSync, realpathSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { IcError, isIcError } from '../core/errors';
import { escapeLiteralPath, literalBase, normalizePattern } from '../core/glob';
import { shellQuote } from '../core/shell';
import { DB_DIR, findGitInfo, isDirectory } from '../store/discover';
import type { CoordContext } from './context';

// What callers name (an edited file, a pattern typed on the command line) as the stored file pattern.

// A Project (its scope is the directory) or a CoordContext (its scope is the stored key; scopeDir the directory).
type PatternContext = Pick<CoordContext, 'scope' | 'ignoreCase'> & { scopeDir?: string };

// Resolves the longest existing prefix of an absolute path through symlinks and keeps the rest as written.
export function realpathLongestPrefix(absolute: string): string {
  const segments = absolute.split('/');
  for (let end = segments.length; end > 1; end--) {
    const prefix = segments.slice(0, end).join('/');
    if (!existsSync(prefix)) continue;
    try {
      const real = realpathSync.native(prefix);
      const rest = segments.slice(end);
      return rest.length ? [real, ...rest].join('/') : real;
    } catch {
      return absolute;
    }
  }
  return absolute;
}

// Turns a pattern into the stored key for a file lock: normalised, relative to the scope, with symlinks in its
// literal leading segments resolved so aliases of one file collide. A relative pattern is read from the scope
// root, or from `base` (names below the root) when given. Hooks call this with root-relative paths.
// normalizePattern bounds the input (TOO_COMPLEX) before it calls any of the file-system callbacks.
export function canonicalFilePattern(ctx: PatternContext, input: string, base?: readonly string[]): string {
  const root = ctx.scopeDir ?? ctx.scope;
  return normalizePattern(input, { root, ignoreCase: ctx.ignoreCase, isDirectory: (rel: string) => isDirectory(join(root, rel)), base, resolvePath: realpathLongestPrefix });
}

// A pattern typed on the command line, read as git reads a pathspec: relative to the current directory when
// that lies inside the scope, `:/PATTERN` from the scope root. Other pathspec magic is refused, not misread.
export function commandLinePattern(ctx: PatternContext, cwd: string, input: string): string {
  if (/^:[(!^]/.test(input)) {
    throw new IcError('INVALID_PATTERN', `pathspec magic "${input.slice(0, 2)}" is not supported (only ":/" is); write "./${input}" for a name starting with ":"`);
  }
  const root = ctx.scopeDir ?? ctx.scope;
  const fromRoot = input.startsWith(':/') ? input.slice(2) || '.' : undefined;
  const pattern = fromRoot !== undefined ? canonicalFilePattern(ctx, fromRoot) : canonicalFilePattern(ctx, input, directoryInScope(root, cwd));
  refuseAcrossRepository(root, pattern);
  return pattern;
}

// One file, one scope: a path inside a submodule (or any repository nested in the scope, or outside git a
// nested `ic init` root) is that repository's, and its hooks lock it in that repository's database. Named
// from the enclosing scope it is refused, as `git add` refuses a path across a submodule boundary.
export function refuseAcrossRepository(root: string, pattern: string): void {
  const segments = literalBase(pattern)
    .split('/')
    .filter((segment) => segment !== '');
  if (segments.length === 0) return;
  const markers = findGitInfo(root) ? ['.git'] : ['.git', DB_DIR];
  for (let end = 1; end <= segments.length; end++) {
    const dir = join(root, ...segments.slice(0, end));
    if (!isDirectory(dir)) return;
    if (!markers.some((marker) => existsSync(join(dir, marker)))) continue;
    const inner = segments.slice(0, end).join('/');
    throw new IcError('OUTSIDE_SCOPE', `${pattern} is inside ${inner}, another repository (a submodule or nested project) with its own locks: run ic from inside it`, {
      pattern,
      repository: dir,
      hint: `cd ${shellQuote(dir)} and name the path from there`,
    });
  }
}

// The current directory (or any path) as names below the scope root (symlinks resolved), or undefined when it
// lies outside the scope: then relative patterns stay root-relative.
export function directoryInScope(scope: string, cwd: string): string[] | undefined {
  const rel = relative(scope, realpathLongestPrefix(resolve(cwd)));
  if (rel === '') return [];
  if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return undefined;
  return rel.split(sep);
}

export interface ProjectPaths {
  /** One literal pattern per path inside the project, in order, each once. */
  patterns: { path: string; pattern: string }[];
  /** Paths inside the project that no pattern can name (control characters, past the length limit). */
  untrackable: { path: string; why: string }[];
}

// The project-relative path of a file the agent names, or undefined when it lies outside the project.
export function projectRelative(projectRoot: string, cwd: string, path: string): string | undefined {
  const names = directoryInScope(projectRoot, resolve(cwd, path));
  return names === undefined || names.length === 0 ? undefined : names.join('/');
}

// Turns edited file paths into literal patterns (escaped, so `app/[id]/page.tsx` names only itself).
export function literalPatterns(ctx: { scope: string; scopeDir?: string; ignoreCase: boolean }, cwd: string, paths: readonly string[]): ProjectPaths {
  const result: ProjectPaths = { patterns: [], untrackable: [] };
  for (const path of paths) {
    const rel = projectRelative(ctx.scopeDir ?? ctx.scope, cwd, path);
    if (rel === undefined) continue;
    try {
      const pattern = canonicalFilePattern(ctx, escapeLiteralPath(rel));
      if (!result.patterns.some((p) => p.pattern === pattern)) result.patterns.push({ path: rel, pattern });
    } catch (error) {
      if (!isIcError(error) || (error.code !== 'INVALID_PATTERN' && error.code !== 'TOO_COMPLEX' && error.code !== 'OUTSIDE_SCOPE')) throw error;
      if (error.code !== 'OUTSIDE_SCOPE') result.untrackable.push({ path: rel, why: error.message });
    }
  }
  return result;
}
