import { type GlobCache, SHARED_CACHE } from './cache';
import { UNIVERSE, contains } from './charset';
import type { Item, Segment } from './expand';

// A normalized relative path: non-empty segments, none `.` or `..`, no leading or trailing `/`.
export function isNormalizedPath(path: string): boolean {
  return path.length > 0 && path.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}

// Tests a path against a normalized pattern by simulating its automaton (linear time, no backtracking,
// so `*a*a*a…` cannot blow up); independent of the product search in overlap.ts. Not a normalized path → false.
export function matchPath(pattern: string, path: string, cache: GlobCache = SHARED_CACHE): boolean {
  if (!isNormalizedPath(path)) return false;
  const { alternatives } = cache.compiled(pattern);
  const names = path.split('/').map((s) => Array.from(s, (ch) => ch.codePointAt(0)!));
  return alternatives.some((alt) => runs(alt.segments, names, isGlobstar, segmentTakes));
}

const isGlobstar = (segment: Segment): boolean => segment.kind === 'globstar';
const isStar = (item: Item): boolean => item.kind === 'star';

// Whether a segment takes a name: `**` takes any (and stays), others when their items run over its characters.
const segmentTakes = (segment: Segment, name: readonly number[]): boolean => segment.kind === 'globstar' || runs(segment.items, name, isStar, itemTakes);

// Whether an item takes a character: a star any of the universe (and stays), a set its members.
const itemTakes = (item: Item, c: number): boolean => contains(item.kind === 'star' ? UNIVERSE : item.set, c);

// Runs a sequence automaton over an input, for both levels: names against segments (where `**` loops) and
// characters against items (where `*` loops). A looping step may also be skipped (matching nothing).
function runs<S, T>(steps: readonly S[], input: readonly T[], loops: (step: S) => boolean, takes: (step: S, symbol: T) => boolean): boolean {
  const n = steps.length;
  let active = new Uint8Array(n + 1);
  active[0] = 1;
  closeOverLoops(steps, active, loops);
  for (const symbol of input) {
    const next = new Uint8Array(n + 1);
    let any = false;
    for (let i = 0; i < n; i++) {
      if (active[i] === 0 || !takes(steps[i]!, symbol)) continue;
      next[loops(steps[i]!) ? i : i + 1] = 1;
      any = true;
    }
    if (!any) return false;
    closeOverLoops(steps, next, loops);
    active = next;
  }
  return active[n] === 1;
}

// Epsilon closure: a looping step can match nothing.
function closeOverLoops<S>(steps: readonly S[], active: Uint8Array, loops: (step: S) => boolean): void {
  for (let i = 0; i < steps.length; i++) {
    if (active[i] === 1 && loops(steps[i]!)) active[i + 1] = 1;
  }
}
