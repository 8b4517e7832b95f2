import { type CharSet, DOT, UNIVERSE, contains, intersect, meets, pickWitness } from './charset';
import type { Item } from './expand';

// Linear-time overlap deciders for long segments, where the product search of segment-overlap.ts would be
// quadratic: both star-free, both starred, or one of each. Each is exact, not a heuristic.

// A character for a set when any will do: readable if possible, `.` only when nothing else fits.
function anyChar(set: CharSet): number | undefined {
  return pickWitness(set) ?? (contains(set, DOT) ? DOT : undefined);
}

// Two star-free segments: same length and every position compatible (O(n)).
export function intersectFixed(a: readonly Item[], b: readonly Item[]): string | undefined {
  if (a.length !== b.length) return undefined;
  const cps: number[] = [];
  let dotsOnly = true;
  for (let i = 0; i < a.length; i++) {
    const set = intersect(setOf(a[i]!), setOf(b[i]!));
    const cp = pickWitness(set);
    if (cp !== undefined) {
      cps.push(cp);
      dotsOnly = false;
    } else if (contains(set, DOT)) cps.push(DOT);
    else return undefined;
  }
  // Only a name made of nothing but forced dots can be "." or ".."; longer dot runs are valid names.
  if (dotsOnly && cps.length <= 2) return undefined;
  return String.fromCodePoint(...cps);
}

// Two segments that both hold a star intersect exactly when their fixed prefixes agree position by position,
// their fixed suffixes agree from the end, and no set is empty: the witness is merged prefix, A's middle,
// B's middle, merged suffix (each star swallows the other side's middle). O(n + m), so long segments stay cheap.
export function intersectStarred(a: readonly Item[], b: readonly Item[]): string | undefined {
  const pa = a.findIndex((item) => item.kind === 'star');
  const pb = b.findIndex((item) => item.kind === 'star');
  const sa = a.length - 1 - lastStar(a);
  const sb = b.length - 1 - lastStar(b);
  const suffix = mergeAligned(a.slice(a.length - sa).reverse(), b.slice(b.length - sb).reverse());
  if (suffix === undefined) return undefined;
  const prefix = mergeAligned(a.slice(0, pa), b.slice(0, pb));
  if (prefix === undefined) return undefined;
  const middleA = spellAny(a.slice(pa, a.length - sa));
  const middleB = spellAny(b.slice(pb, b.length - sb));
  if (middleA === undefined || middleB === undefined) return undefined;
  const head = String.fromCodePoint(...prefix);
  let rest = middleA + middleB + String.fromCodePoint(...suffix.reverse());
  // Both stars follow the prefix, so an `x` can go there to turn "", "." or ".." (or a leading dot) into a name.
  if (head === '' || head === '.' || head === '..') {
    if (head + rest === '' || head + rest === '.' || head + rest === '..' || (head === '' && rest.startsWith('.'))) {
      rest = `x${rest}`;
    }
  }
  return head + rest;
}

// Index of the last star in a segment.
function lastStar(items: readonly Item[]): number {
  for (let i = items.length - 1; i >= 0; i--) if (items[i]!.kind === 'star') return i;
  return -1;
}

// Characters satisfying two star-free runs laid side by side from their first position; the longer run's
// tail only has to satisfy itself (the other side's star takes it).
function mergeAligned(x: readonly Item[], y: readonly Item[]): number[] | undefined {
  const out: number[] = [];
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const set = i < x.length && i < y.length ? intersect(setOf(x[i]!), setOf(y[i]!)) : setOf((x[i] ?? y[i])!);
    const cp = anyChar(set);
    if (cp === undefined) return undefined;
    out.push(cp);
  }
  return out;
}

// One string matching a run of items, stars taken as empty; undefined when a set is empty.
function spellAny(items: readonly Item[]): string | undefined {
  let out = '';
  for (const item of items) {
    if (item.kind === 'star') continue;
    const cp = anyChar(item.set);
    if (cp === undefined) return undefined;
    out += String.fromCodePoint(cp);
  }
  return out;
}

// The set of one item (a star stands for any one character here).
function setOf(item: Item): CharSet {
  return item.kind === 'star' ? UNIVERSE : item.set;
}

// A star-free segment (n ≥ 3, so never "." or "..") against a starred one: anchor the starred side's prefix
// and suffix, then place each star-separated chunk at its leftmost fit. Positions are independent, so the
// leftmost fit never hurts later chunks and the greedy answer is exact.
export function intersectMixed(fixed: readonly Item[], starred: readonly Item[]): string | undefined {
  const n = fixed.length;
  const first = starred.findIndex((item) => item.kind === 'star');
  const last = lastStar(starred);
  const tailLength = starred.length - 1 - last;
  const chosen: Array<CharSet | undefined> = new Array<CharSet | undefined>(n);
  if (first + tailLength > n) return undefined;
  for (let r = 0; r < first; r++) chosen[r] = setOf(starred[r]!);
  for (let r = 0; r < tailLength; r++) chosen[n - tailLength + r] = setOf(starred[last + 1 + r]!);
  const chunks: Item[][] = [];
  let run: Item[] = [];
  for (const item of starred.slice(first, last + 1)) {
    if (item.kind === 'star') {
      if (run.length > 0) chunks.push(run);
      run = [];
    } else run.push(item);
  }
  let from = first;
  const end = n - tailLength;
  const text = literalText(fixed);
  for (const chunk of chunks) {
    let at = from;
    const needle = text === undefined ? undefined : literalText(chunk);
    if (needle !== undefined) {
      at = text!.indexOf(needle, from);
      if (at < 0) return undefined;
    } else {
      while (at + chunk.length <= end && !chunk.every((item, r) => meets(setOf(fixed[at + r]!), setOf(item)))) at++;
    }
    if (at + chunk.length > end) return undefined;
    chunk.forEach((item, r) => (chosen[at + r] = setOf(item)));
    from = at + chunk.length;
  }
  const cps: number[] = [];
  for (let i = 0; i < n; i++) {
    const own = setOf(fixed[i]!);
    const cp = anyChar(chosen[i] === undefined ? own : intersect(own, chosen[i]!));
    if (cp === undefined) return undefined;
    cps.push(cp);
  }
  return String.fromCodePoint(...cps);
}


// The text of a run of single-character items (one UTF-16 unit each), else undefined; lets literal
// chunks be placed with indexOf.
function literalText(items: readonly Item[]): string | undefined {
  let out = '';
  for (const item of items) {
    if (item.kind === 'star') return undefined;
    const only = item.set.length === 1 ? item.set[0]! : undefined;
    if (only === undefined || only[0] !== only[1] || only[0] > 0xffff) return undefined;
    out += String.fromCharCode(only[0]);
  }
  return out;
}
