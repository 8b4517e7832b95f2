import { existsSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { IcError } from '../core/errors';
import { escapeLiteralPath, literalBase, normalizePattern, unescapeLiteral, validateComplexity } from '../core/glob';
import type { CoordContext } from './context';

type PatternContext = Pick<CoordContext, 'scope' | 'ignoreCase'>;

const GLOB_CHARS = /[*?[\]{}\\]/;

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

// An absolute pattern's literal leading directories go through realpath, so /tmp/link/x names the same
// file as its target when the scope root is canonical.
function canonicalizeAbsoluteInput(input: string): string {
  if (!isAbsolute(input)) return input;
  const segments = input.split('/');
  let literal = 0;
  while (literal < segments.length && !GLOB_CHARS.test(segments[literal]!)) literal++;
  const head = segments.slice(0, literal).join('/') || '/';
  const canonical = realpathLongestPrefix(head);
  return literal === segments.length ? canonical : [canonical, ...segments.slice(literal)].join('/');
}

// Turns what a user or hook typed into the stored key for a file pattern: normalised, relative to the
// scope, with symlinked directories in its literal base resolved so aliases of one file collide.
export function canonicalFilePattern(ctx: PatternContext, input: string): string {
  validateComplexity(input); // before the file-system work below, not only inside normalizePattern
  const options = {
    root: ctx.scope,
    ignoreCase: ctx.ignoreCase,
    isDirectory: (rel: string) => isDirectory(join(ctx.scope, rel)),
  };
  const pattern = normalizePattern(canonicalizeAbsoluteInput(input), options);
  const base = literalBase(pattern);
  if (base === '') return pattern;
  const written = join(ctx.scope, unescapeLiteral(base));
  const real = realpathLongestPrefix(written);
  if (real === written) return pattern;
  const rel = relative(ctx.scope, real);
  if (rel.startsWith('..') || isAbsolute(rel)) {
    throw new IcError('OUTSIDE_SCOPE', `"${input}" resolves through a symlink to ${real}, outside the scope ${ctx.scope}`, { pattern: input, scope: ctx.scope });
  }
  const rebased = rel === '' ? '' : escapeLiteralPath(rel.split(sep).join('/'));
  const rest = pattern.slice(base.length).replace(/^\//, '');
  return normalizePattern(rebased && rest ? `${rebased}/${rest}` : rebased || rest || '**', options);
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
