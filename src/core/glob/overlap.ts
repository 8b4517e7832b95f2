import { automatonOf } from './automaton';
import { compilePattern } from './compile';
import type { Item, Segment } from './expand';
import { basesDiverge } from './scan';
import { segmentsMeet } from './segment-meet';
import { intersectSegments } from './segment-overlap';

export interface Overlap {
  overlap: boolean;
  example?: string;
}

const ANY_NAME: readonly Item[] = [{ kind: 'star' }];
const MEMO_SIZE = 1 << 16; // segment pairs remembered across calls
const memo = new Map<string, Map<string, boolean>>();
let memoized = 0;
const UNKNOWN = 0;
const MEET = 1;
const APART = 2;

// Empties the segment-pair memo; for benchmarks that must measure cold work.
export function clearOverlapMemo(): void {
  memo.clear();
  memoized = 0;
}

// The items a segment matches with (`**` and "any segment" both match any one name).
function itemsOf(segment: Segment | undefined): readonly Item[] {
  return segment === undefined || segment.kind === 'globstar' ? ANY_NAME : segment.items;
}

// Whether one segment both sides accept exists (undefined = any segment); memoized across calls because
// pairs recur across checks. Only yes/no: the search needs an example for the pairs on its final path only.
function segmentsOverlap(x: Segment | undefined, y: Segment | undefined): boolean {
  if (x?.kind === 'chars' && y?.kind === 'chars' && x.literal !== undefined && y.literal !== undefined) {
    return x.literal === y.literal;
  }
  const kx = x?.key ?? '**';
  const ky = y?.key ?? '**';
  let row = memo.get(kx);
  const hit = row?.get(ky);
  if (hit !== undefined) return hit;
  const found = segmentsMeet(itemsOf(x), itemsOf(y));
  if (memoized >= MEMO_SIZE) {
    clearOverlapMemo();
    row = undefined;
  }
  if (row === undefined) {
    row = new Map();
    memo.set(kx, row);
  }
  row.set(ky, found);
  memoized++;
  return found;
}

// One segment name both sides accept (shortest or near it), for a pair already known to overlap.
function segmentWitness(x: Segment | undefined, y: Segment | undefined): string {
  if (x?.kind === 'chars' && y?.kind === 'chars' && x.literal !== undefined && y.literal !== undefined) return x.literal;
  const found = intersectSegments(itemsOf(x), itemsOf(y));
  if (found === undefined) throw new Error(`glob: segment deciders disagree on ${x?.key ?? '**'} | ${y?.key ?? '**'}`);
  return found;
}

// Decides exactly whether some valid path matches both normalized patterns, with a short example when so.
// Breadth-first search over the product of the two segment automata (automaton.ts); each step consumes one
// path segment that both sides accept (decided by segment-meet.ts, memoized per call in a flat array by
// segment ids); the example is spelled afterwards along the path found (segment-overlap.ts).
export function overlaps(a: string, b: string): Overlap {
  const pa = compilePattern(a);
  const pb = compilePattern(b);
  if (basesDiverge(a, b)) return { overlap: false };
  const A = automatonOf(pa);
  const B = automatonOf(pb);
  const Q = B.accepting.length;
  const nb = B.segments.length;
  const verdicts = new Uint8Array(A.segments.length * nb);
  const states = A.accepting.length * Q * 2;
  const parent = new Int32Array(states).fill(-2);
  const viaA = new Int32Array(states).fill(-1);
  const viaB = new Int32Array(states);
  const queue = new Int32Array(states);
  let head = 0;
  let tail = 0;
  let found = -1;

  // Marks a state reached, closing over epsilon moves (a `**` matching zero segments); notes the first accepting one.
  const discover = (p: number, q: number, consumed: number, from: number, x: number, y: number): void => {
    const s = (p * Q + q) * 2 + consumed;
    if (parent[s] !== -2) return;
    parent[s] = from;
    viaA[s] = x;
    viaB[s] = y;
    queue[tail++] = s;
    if (consumed === 1 && A.accepting[p] === 1 && B.accepting[q] === 1 && found < 0) found = s;
    for (const to of A.skips[p]!) discover(to, q, consumed, s, -1, -1);
    for (const to of B.skips[q]!) discover(p, to, consumed, s, -1, -1);
  };

  // Whether segments x of A and y of B share a name, decided once per call.
  const meet = (x: number, y: number): boolean => {
    const slot = x * nb + y;
    let verdict = verdicts[slot]!;
    if (verdict === UNKNOWN) {
      verdict = segmentsOverlap(A.segments[x], B.segments[y]) ? MEET : APART;
      verdicts[slot] = verdict;
    }
    return verdict === MEET;
  };

  discover(A.start, B.start, 0, -1, -1, -1);
  while (head < tail && found < 0) {
    const s = queue[head++]!;
    const pq = s >> 1;
    const p = Math.floor(pq / Q);
    const q = pq % Q;
    for (const x of A.moves[p]!) {
      for (const y of B.moves[q]!) {
        if (meet(x.id, y.id)) discover(x.to, y.to, 1, s, x.id, y.id);
      }
    }
  }
  if (found < 0) return { overlap: false };
  const parts: string[] = [];
  for (let s = found; s >= 0; s = parent[s]!) {
    if (viaA[s]! >= 0) parts.push(segmentWitness(A.segments[viaA[s]!], B.segments[viaB[s]!]));
  }
  return { overlap: true, example: parts.reverse().join('/') };
}
