// A test oracle for the segment decider (src/core/glob/segment.ts): breadth-first search over the product of
// the two segments' character automata, tracking whether the name typed so far is "", ".", ".." or a name, and
// choosing characters symbolically from set intersections. A different algorithm from the decider's case split
// (it was the production decider for short segments before the two were merged), exact for any sets, and
// quadratic, which is why it now serves only here.
import { type CharSet, DOT, UNIVERSE, contains, intersect, pickWitness } from '../../../src/core/glob/charset';
import type { Item } from '../../../src/core/glob/expand';

const EMPTY = 0;
const ONE_DOT = 1;
const TWO_DOTS = 2;
const NAME = 3;
const NO_CHAR = -1;
const UNKNOWN = -2;

interface ItemInfo {
  star: boolean;
  set: CharSet;
  witness: number;
  dot: boolean;
}

function describe(item: Item): ItemInfo {
  if (item.kind === 'star') return { star: true, set: UNIVERSE, witness: 0x78, dot: true };
  return { star: false, set: item.set, witness: pickWitness(item.set) ?? NO_CHAR, dot: contains(item.set, DOT) };
}

// The shortest non-empty string, never "." or "..", that both item sequences match; undefined when none exists.
export function searchCommonName(a: readonly Item[], b: readonly Item[]): string | undefined {
  const n = a.length;
  const m = b.length;
  const infoA = a.map(describe);
  const infoB = b.map(describe);
  const states = (n + 1) * (m + 1) * 4;
  const parent = new Int32Array(states).fill(UNKNOWN);
  const via = new Int32Array(states);
  const queue = new Int32Array(states);
  let head = 0;
  let tail = 0;
  let found = -1;
  const index = (i: number, j: number, k: number): number => (i * (m + 1) + j) * 4 + k;
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
    const witness = x.star ? y.witness : y.star ? x.witness : (pickWitness(intersect(x.set, y.set)) ?? NO_CHAR);
    if (witness !== NO_CHAR) discover(ni, nj, NAME, s, witness);
    if (x.dot && y.dot) discover(ni, nj, k === EMPTY ? ONE_DOT : k === ONE_DOT ? TWO_DOTS : NAME, s, DOT);
  }
  if (found < 0) return undefined;
  const cps: number[] = [];
  for (let s = found; s >= 0; s = parent[s]!) if (via[s] !== NO_CHAR) cps.push(via[s]!);
  return String.fromCodePoint(...cps.reverse());
}

// Whether a string is a name (non-empty, not "." or "..", no `/`, NUL or surrogate half) that the items
// match: dynamic programming over positions, with its own interval test, sharing nothing with src/core/glob.
export function isCommonName(items: readonly Item[], name: string): boolean {
  const cps = Array.from(name, (ch) => ch.codePointAt(0)!);
  if (name === '' || name === '.' || name === '..') return false;
  const ok = (cp: number): boolean => cp !== 0 && cp !== 0x2f && (cp < 0xd800 || cp > 0xdfff) && cp <= 0x10ffff;
  if (!cps.every(ok)) return false;
  const has = (set: CharSet, cp: number): boolean => set.some(([lo, hi]) => lo <= cp && cp <= hi);
  // reach[i]: the first i items can match the characters read so far.
  let reach = new Array<boolean>(items.length + 1).fill(false);
  reach[0] = true;
  const close = (r: boolean[]): void => {
    for (let i = 0; i < items.length; i++) if (r[i] && items[i]!.kind === 'star') r[i + 1] = true;
  };
  close(reach);
  for (const cp of cps) {
    const next = new Array<boolean>(items.length + 1).fill(false);
    for (let i = 0; i < items.length; i++) {
      if (!reach[i]) continue;
      const item = items[i]!;
      if (item.kind === 'star') next[i] = true;
      else if (has(item.set, cp)) next[i + 1] = true;
    }
    close(next);
    reach = next;
  }
  return reach[items.length]!;
}
