import { type CharSet, DOT, UNIVERSE, complement, intersect, meets } from './charset';
import type { Item } from './expand';

// Yes/no overlap of two segment patterns, without building a witness: the segment-level search asks this
// for every pair of segments it meets, and only the pairs on the final path need a spelled example.
// Same case split as segment-overlap.ts (aligned, both starred, one of each), but allocation-free.

type SetItem = Extract<Item, { kind: 'set' }>;

const NON_DOT: CharSet = intersect(complement([[DOT, DOT]]), UNIVERSE);

// True when some valid segment name (non-empty, not "." or "..") matches both item sequences.
// Any sizes, in time linear in the segments (or O(n·k/32) for a chunk of classes).
export function segmentsMeet(a: readonly Item[], b: readonly Item[]): boolean {
  const aStars = hasStar(a);
  const bStars = hasStar(b);
  if (aStars && bStars) return meetStarred(a, b);
  if (!aStars && !bStars) return meetFixed(a, b);
  return aStars ? meetNamed(b, a) : meetNamed(a, b);
}

// One of each: a fixed side of three or more characters always spells a valid name; one of one or two
// characters does iff some position can hold a non-dot, so try each position restricted to non-dots.
function meetNamed(fixed: readonly Item[], starred: readonly Item[]): boolean {
  if (fixed.length > 2) return meetMixed(fixed, starred);
  for (let p = 0; p < fixed.length; p++) {
    const restricted = fixed.map((item, i): Item => (i === p ? { kind: 'set', set: intersect((item as SetItem).set, NON_DOT) } : item));
    if (meetMixed(restricted, starred)) return true;
  }
  return false;
}

// Whether a sequence holds a star (then it matches strings of many lengths).
function hasStar(items: readonly Item[]): boolean {
  for (const item of items) if (item.kind === 'star') return true;
  return false;
}


// Whether an item can meet another (a star stands for one character of a non-empty run here).
function itemsMeet(x: Item, y: Item): boolean {
  if (x.kind === 'star') return y.kind === 'star' || y.set.length > 0;
  if (y.kind === 'star') return x.set.length > 0;
  return meets(x.set, y.set);
}

// Whether two sets share a character other than `.` (an all-dot name of length ≤ 2 is no name).
function meetsBesidesDot(x: CharSet, y: CharSet): boolean {
  let i = 0;
  let j = 0;
  while (i < x.length && j < y.length) {
    const p = x[i]!;
    const q = y[j]!;
    const lo = Math.max(p[0], q[0]);
    const hi = Math.min(p[1], q[1]);
    if (lo < hi || (lo === hi && lo !== DOT)) return true;
    if (p[1] < q[1]) i++;
    else j++;
  }
  return false;
}

// Two star-free segments: same length and every position compatible (mirrors intersectFixed).
function meetFixed(a: readonly Item[], b: readonly Item[]): boolean {
  if (a.length !== b.length) return false;
  let named = a.length > 2;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]! as SetItem;
    const y = b[i]! as SetItem;
    if (!meets(x.set, y.set)) return false;
    if (!named && meetsBesidesDot(x.set, y.set)) named = true;
  }
  return named;
}

// Both starred: fixed prefixes agree from the start, fixed suffixes from the end, and every set of the
// middles is non-empty (mirrors intersectStarred; a star can always add an `x` to make a valid name).
function meetStarred(a: readonly Item[], b: readonly Item[]): boolean {
  const pa = firstStar(a);
  const pb = firstStar(b);
  const la = lastStar(a);
  const lb = lastStar(b);
  const sa = a.length - 1 - la;
  const sb = b.length - 1 - lb;
  for (let i = 0; i < Math.max(pa, pb); i++) {
    if (i < pa && i < pb ? !itemsMeet(a[i]!, b[i]!) : !itemsMeet((i < pa ? a : b)[i]!, STAR)) return false;
  }
  for (let i = 1; i <= Math.max(sa, sb); i++) {
    const x = i <= sa ? a[a.length - i]! : undefined;
    const y = i <= sb ? b[b.length - i]! : undefined;
    if (!itemsMeet(x ?? STAR, y ?? STAR)) return false;
  }
  return nonEmpty(a, pa, la) && nonEmpty(b, pb, lb);
}

const STAR: Item = { kind: 'star' };

// Index of the first star (the sequence is known to hold one).
function firstStar(items: readonly Item[]): number {
  for (let i = 0; i < items.length; i++) if (items[i]!.kind === 'star') return i;
  return -1;
}

// Index of the last star in a segment, or -1.
function lastStar(items: readonly Item[]): number {
  for (let i = items.length - 1; i >= 0; i--) if (items[i]!.kind === 'star') return i;
  return -1;
}

// Whether every set between two indexes (inclusive) can match something.
function nonEmpty(items: readonly Item[], from: number, to: number): boolean {
  for (let i = from; i <= to; i++) {
    const item = items[i]!;
    if (item.kind === 'set' && item.set.length === 0) return false;
  }
  return true;
}

// Whether some string fits a star-free segment and a starred one (any string: name rules are the caller's):
// anchor the starred side's prefix and
// suffix, then place each star-separated chunk at its leftmost fit (mirrors intersectMixed: positions are
// independent, so leftmost never hurts later chunks). Literal text uses indexOf; otherwise a bit-parallel scan.
function meetMixed(fixed: readonly Item[], starred: readonly Item[]): boolean {
  const n = fixed.length;
  const first = firstStar(starred);
  const last = lastStar(starred);
  const tailLength = starred.length - 1 - last;
  if (first + tailLength > n) return false;
  for (let r = 0; r < first; r++) if (!itemsMeet(fixed[r]!, starred[r]!)) return false;
  for (let r = 0; r < tailLength; r++) if (!itemsMeet(fixed[n - tailLength + r]!, starred[last + 1 + r]!)) return false;
  const end = n - tailLength;
  for (let i = first; i < end; i++) {
    const item = fixed[i]!;
    if (item.kind === 'set' && item.set.length === 0) return false;
  }
  const text = literalText(fixed, 0, n);
  let from = first;
  let start = first + 1;
  while (start <= last) {
    let stop = start;
    while (starred[stop]!.kind !== 'star') stop++;
    if (stop > start) {
      const at = place(fixed, text, starred, start, stop, from, end);
      if (at < 0) return false;
      from = at + (stop - start);
    }
    start = stop + 1;
  }
  return true;
}

// Leftmost index in [from, end) where the chunk starred[start, stop) fits position by position, or -1.
function place(fixed: readonly Item[], text: string | undefined, starred: readonly Item[], start: number, stop: number, from: number, end: number): number {
  const k = stop - start;
  if (text !== undefined) {
    const needle = literalText(starred, start, stop);
    if (needle !== undefined) {
      const at = text.indexOf(needle, from);
      return at >= 0 && at + k <= end ? at : -1;
    }
  }
  return shiftAnd(fixed, starred, start, k, from, end);
}

// Shift-and over the fixed positions: bit r of the state says the chunk's first r+1 items fit ending here;
// O(n·⌈k/32⌉) plus one mask per distinct character or class, instead of O(n·k).
function shiftAnd(fixed: readonly Item[], starred: readonly Item[], start: number, k: number, from: number, end: number): number {
  const words = (k + 31) >>> 5;
  const top = (k - 1) >>> 5;
  const done = 1 << ((k - 1) & 31);
  const masks = new Map<CharSet | number, Uint32Array>();
  const state = new Uint32Array(words);
  for (let i = from; i < end; i++) {
    const own = fixed[i]! as SetItem;
    const only = own.set.length === 1 && own.set[0]![0] === own.set[0]![1] ? own.set[0]![0] : own.set;
    let mask = masks.get(only);
    if (mask === undefined) {
      mask = new Uint32Array(words);
      for (let r = 0; r < k; r++) if (itemsMeet(own, starred[start + r]!)) mask[r >>> 5]! |= 1 << (r & 31);
      masks.set(only, mask);
    }
    let carry = 1;
    for (let w = 0; w < words; w++) {
      const v = state[w]!;
      state[w] = ((v << 1) | carry) & mask[w]!;
      carry = v >>> 31;
    }
    if ((state[top]! & done) !== 0) return i - k + 1;
  }
  return -1;
}

// The text of items[from, to) when each is one character of one UTF-16 unit, else undefined (lets literal
// chunks be placed with indexOf).
function literalText(items: readonly Item[], from: number, to: number): string | undefined {
  let out = '';
  for (let i = from; i < to; i++) {
    const item = items[i]!;
    if (item.kind === 'star' || item.set.length !== 1) return undefined;
    const [lo, hi] = item.set[0]!;
    if (lo !== hi || lo > 0xffff) return undefined;
    out += String.fromCharCode(lo);
  }
  return out;
}
