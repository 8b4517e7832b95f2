import { type CharSet, DOT, UNIVERSE, contains, intersect, pickWitness } from './charset';
import type { Item } from './expand';
import { intersectFixed, intersectMixed, intersectStarred } from './segment-linear';

// What the name typed so far looks like: empty, ".", "..", or anything else. Only the last is a valid
// segment name, so the search must track it to refuse witnesses like "..".
const EMPTY = 0;
const ONE_DOT = 1;
const TWO_DOTS = 2;
const NAME = 3;

const NO_CHAR = -1;
const SMALL_PRODUCT = 100; // below this the search is cheap and finds the shortest witness
const UNKNOWN = -2;

// Per-item facts used on every edge: its set, a readable non-dot witness, and whether `.` is allowed.
interface ItemInfo {
  star: boolean;
  set: CharSet;
  witness: number;
  dot: boolean;
}

// Precomputes the per-item facts once per search.
function describe(item: Item): ItemInfo {
  if (item.kind === 'star') return { star: true, set: UNIVERSE, witness: 0x78, dot: true };
  return { star: false, set: item.set, witness: pickWitness(item.set) ?? NO_CHAR, dot: contains(item.set, DOT) };
}

// Shortest non-empty string, never "." or "..", matched by both segment patterns; undefined when none exists.
// Breadth-first search over the product of the two character automata (positions × name shape),
// choosing characters symbolically from set intersections.
export function intersectSegments(a: readonly Item[], b: readonly Item[]): string | undefined {
  if (a.length > 2 && b.length > 2 && (a.length + 1) * (b.length + 1) > SMALL_PRODUCT) {
    const aStars = a.some((item) => item.kind === 'star');
    const bStars = b.some((item) => item.kind === 'star');
    if (aStars && bStars) return intersectStarred(a, b);
    if (!aStars && !bStars) return intersectFixed(a, b);
    return aStars ? intersectMixed(b, a) : intersectMixed(a, b);
  }
  const shortest = search(a, b, true);
  if (shortest === undefined || !shortest.startsWith('.')) return shortest;
  return search(a, b, false) ?? shortest;
}

// The product search; with `leadingDot` false a witness may not start with "." (`x.ts` reads better than `.ts`).
function search(a: readonly Item[], b: readonly Item[], leadingDot: boolean): string | undefined {
  const n = a.length;
  const m = b.length;
  const infoA = a.map(describe);
  const infoB = b.map(describe);
  const states = (n + 1) * (m + 1) * 4;
  const parent = new Int32Array(states).fill(UNKNOWN);
  const via = new Int32Array(states);
  const queue = new Int32Array(states);
  const pairCache = new Int32Array(n * m).fill(UNKNOWN);
  let head = 0;
  let tail = 0;
  let found = -1;

  const index = (i: number, j: number, k: number): number => (i * (m + 1) + j) * 4 + k;

  // Marks a state reached (with its epsilon closure over skippable stars); notes the first accepting one.
  const discover = (i: number, j: number, k: number, from: number, cp: number): void => {
    const s = index(i, j, k);
    if (parent[s] !== UNKNOWN) return;
    parent[s] = from;
    via[s] = cp;
    queue[tail++] = s;
    if (i === n && j === m && k === NAME && found < 0) found = s;
    if (i < n && infoA[i]!.star) discover(i + 1, j, k, s, NO_CHAR);
    if (j < m && infoB[j]!.star) discover(i, j + 1, k, s, NO_CHAR);
  };

  // Witness for two set items meeting, cached per item pair (NO_CHAR when only "." or nothing fits).
  const pairWitness = (i: number, j: number): number => {
    const slot = i * m + j;
    let w = pairCache[slot]!;
    if (w === UNKNOWN) {
      w = pickWitness(intersect(infoA[i]!.set, infoB[j]!.set)) ?? NO_CHAR;
      pairCache[slot] = w;
    }
    return w;
  };

  discover(0, 0, EMPTY, -1, NO_CHAR);
  while (head < tail && found < 0) {
    const s = queue[head++]!;
    const k = s & 3;
    const j = (s >> 2) % (m + 1);
    const i = Math.floor((s >> 2) / (m + 1));
    if (i === n || j === m) continue;
    const x = infoA[i]!;
    const y = infoB[j]!;
    const ni = x.star ? i : i + 1;
    const nj = y.star ? j : j + 1;
    let witness: number;
    if (x.star) witness = y.witness;
    else if (y.star) witness = x.witness;
    else witness = pairWitness(i, j);
    if (witness !== NO_CHAR) discover(ni, nj, NAME, s, witness);
    if (x.dot && y.dot && (leadingDot || k !== EMPTY)) discover(ni, nj, k === EMPTY ? ONE_DOT : k === ONE_DOT ? TWO_DOTS : NAME, s, DOT);
  }
  return found < 0 ? undefined : spell(found, parent, via);
}

// Walks parent links back from the accepting state to spell the witness.
function spell(state: number, parent: Int32Array, via: Int32Array): string {
  const cps: number[] = [];
  for (let s = state; s >= 0; s = parent[s]!) {
    if (via[s] !== NO_CHAR) cps.push(via[s]!);
  }
  return String.fromCodePoint(...cps.reverse());
}
