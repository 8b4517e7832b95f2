import { type GlobCache, SHARED_CACHE } from './cache';
import { UNIVERSE, contains } from './charset';
import type { Item, Segment } from './expand';

// A normalized relative path: non-empty segments, none `.` or `..`, no leading or trailing `/`.
export function isNormalizedPath(path: string): boolean {
  if (path.length === 0) return false;
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.' || segment === '..') return false;
  }
  return true;
}

// Tests a path against a normalized pattern by simulating its automaton (linear time, no backtracking,
// so `*a*a*a…` cannot blow up); independent of the product search in overlap.ts. Not a normalized path → false.
export function matchPath(pattern: string, path: string, cache: GlobCache = SHARED_CACHE): boolean {
  if (!isNormalizedPath(path)) return false;
  const { alternatives } = cache.compiled(pattern);
  const segments = path.split('/').map((s) => Array.from(s, (ch) => ch.codePointAt(0)!));
  return alternatives.some((alt) => matchSegments(alt.segments, segments));
}

// Runs the segment-level automaton: `**` may stay on a segment or be skipped; other segments advance one.
function matchSegments(pattern: readonly Segment[], path: readonly number[][]): boolean {
  const n = pattern.length;
  let active = new Uint8Array(n + 1);
  active[0] = 1;
  closeOverGlobstars(pattern, active);
  for (const segment of path) {
    const next = new Uint8Array(n + 1);
    let any = false;
    for (let i = 0; i < n; i++) {
      if (active[i] === 0) continue;
      const p = pattern[i]!;
      if (p.kind === 'globstar') next[i] = 1;
      else if (matchItems(p.items, segment)) next[i + 1] = 1;
      else continue;
      any = true;
    }
    if (!any) return false;
    closeOverGlobstars(pattern, next);
    active = next;
  }
  return active[n] === 1;
}

// Epsilon closure: a globstar can match zero segments.
function closeOverGlobstars(pattern: readonly Segment[], active: Uint8Array): void {
  for (let i = 0; i < pattern.length; i++) {
    if (active[i] === 1 && pattern[i]!.kind === 'globstar') active[i + 1] = 1;
  }
}

// Runs the character-level automaton of one segment over one path segment.
function matchItems(items: readonly Item[], chars: readonly number[]): boolean {
  const m = items.length;
  let active = new Uint8Array(m + 1);
  active[0] = 1;
  closeOverStars(items, active);
  for (const c of chars) {
    const next = new Uint8Array(m + 1);
    let any = false;
    for (let i = 0; i < m; i++) {
      if (active[i] === 0) continue;
      const item = items[i]!;
      if (item.kind === 'star') {
        if (!contains(UNIVERSE, c)) continue;
        next[i] = 1;
      }
      else if (contains(item.set, c)) next[i + 1] = 1;
      else continue;
      any = true;
    }
    if (!any) return false;
    closeOverStars(items, next);
    active = next;
  }
  return active[m] === 1;
}

// Epsilon closure: a star can match the empty string.
function closeOverStars(items: readonly Item[], active: Uint8Array): void {
  for (let i = 0; i < items.length; i++) {
    if (active[i] === 1 && items[i]!.kind === 'star') active[i + 1] = 1;
  }
}
