import { isAbsolute, join, normalize, relative, sep } from 'node:path';
import { isIcError } from '../core/errors';
import { escapeLiteralPath } from '../core/glob';
import { canonicalFilePattern, realpathLongestPrefix } from '../coord/paths';

export interface ProjectPaths {
  /** One literal pattern per path inside the project, in order, each once. */
  patterns: { path: string; pattern: string }[];
  /** Paths inside the project that no pattern can name (control characters, past the length limit). */
  untrackable: { path: string; why: string }[];
}

// The project-relative path of a file the agent names, or undefined when it lies outside the project.
export function projectRelative(projectRoot: string, cwd: string, path: string): string | undefined {
  const absolute = normalize(isAbsolute(path) ? path : join(cwd, path));
  const real = realpathLongestPrefix(absolute);
  const rel = relative(projectRoot, real);
  if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return undefined;
  return rel.split(sep).join('/');
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
