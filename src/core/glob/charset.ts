// Sets of code points as sorted, disjoint, inclusive [lo, hi] intervals, so classes intersect symbolically.
export type CharSet = ReadonlyArray<readonly [number, number]>;

export const SLASH = 0x2f;
export const DOT = 0x2e;

// Every code point a path segment may hold: no NUL, no `/`, no surrogate halves.
export const UNIVERSE: CharSet = [
  [0x01, SLASH - 1],
  [SLASH + 1, 0xd7ff],
  [0xe000, 0x10ffff],
];

// Sorts and merges raw ranges into canonical intervals.
export function canonical(ranges: Array<[number, number]>): CharSet {
  const sorted = ranges.filter(([lo, hi]) => lo <= hi).sort((x, y) => x[0] - y[0]);
  const out: Array<[number, number]> = [];
  for (const [lo, hi] of sorted) {
    const last = out[out.length - 1];
    if (last !== undefined && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else out.push([lo, hi]);
  }
  return out;
}

// Intersects two sets; the symbolic step that lets `[a-c]` meet `[!a]` without enumerating characters.
export function intersect(a: CharSet, b: CharSet): CharSet {
  const out: Array<[number, number]> = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i]!;
    const y = b[j]!;
    const lo = Math.max(x[0], y[0]);
    const hi = Math.min(x[1], y[1]);
    if (lo <= hi) out.push([lo, hi]);
    if (x[1] < y[1]) i++;
    else j++;
  }
  return out;
}

// The universe minus a set: what a negated class `[!…]` matches.
export function complement(set: CharSet): CharSet {
  const out: Array<[number, number]> = [];
  let next = 0;
  for (const [lo, hi] of canonical(set.map(([l, h]) => [l, h]))) {
    if (lo > next) out.push([next, lo - 1]);
    next = hi + 1;
  }
  if (next <= 0x10ffff) out.push([next, 0x10ffff]);
  return intersect(out, UNIVERSE);
}

// A class body as a set restricted to the universe (a range over `/` silently skips it).
export function classSet(ranges: ReadonlyArray<readonly [number, number]>, negated: boolean): CharSet {
  const positive = intersect(canonical(ranges.map(([lo, hi]) => [lo, hi])), UNIVERSE);
  return negated ? complement(positive) : positive;
}

export function single(cp: number): CharSet {
  return intersect([[cp, cp]], UNIVERSE);
}

export function contains(set: CharSet, cp: number): boolean {
  let lo = 0;
  let hi = set.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const r = set[mid]!;
    if (cp < r[0]) hi = mid - 1;
    else if (cp > r[1]) lo = mid + 1;
    else return true;
  }
  return false;
}

const PREFERRED = 'xabcdefghijklmnopqrstuvwyz0123456789_-XABCDEFGHIJKLMNOPQRSTUVWYZ';

// Picks a readable witness from a set, excluding `.` (dots are chosen separately): `x` if allowed, else a
// letter or digit, else the lowest printable code point; undefined when only `.` (or nothing) remains.
export function pickWitness(set: CharSet): number | undefined {
  const only = set.length === 1 ? set[0]! : undefined;
  if (only !== undefined && only[0] === only[1]) return only[0] === DOT ? undefined : only[0];
  if (contains(set, 0x78)) return 0x78;
  for (const ch of PREFERRED) {
    const cp = ch.codePointAt(0)!;
    if (contains(set, cp)) return cp;
  }
  for (const [lo, hi] of set) {
    const start = Math.max(lo, 0x20);
    for (let cp = start; cp <= hi && cp < start + 3; cp++) {
      if (cp !== DOT && cp !== 0x7f) return cp;
    }
  }
  for (const [lo, hi] of set) {
    if (lo !== DOT) return lo;
    if (hi > DOT) return DOT + 1;
  }
  return undefined;
}

// Whether two sets share a character, without building the intersection.
export function meets(x: CharSet, y: CharSet): boolean {
  let i = 0;
  let j = 0;
  while (i < x.length && j < y.length) {
    const p = x[i]!;
    const q = y[j]!;
    if (p[0] <= q[1] && q[0] <= p[1]) return true;
    if (p[1] < q[1]) i++;
    else j++;
  }
  return false;
}

// One position of a segment pattern: a run of any characters, or exactly one character from a set.
export type Item = { kind: 'star' } | { kind: 'set'; set: CharSet };
