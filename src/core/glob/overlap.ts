import { automatonOf } from './automaton';
import { compilePattern } from './compile';
import type { Item, Segment } from './expand';
import { basesDiverge } from './scan';
import { intersectSegments } from './segment-overlap';

export interface Overlap {
  overlap: boolean;
  example?: string;
}

const ANY_NAME: readonly Item[] = [{ kind: 'star' }];
const MEMO_SIZE = 4096;
const memo = new Map<string, Map<string, string | null>>();

// Empties the segment-pair memo; for benchmarks that must measure cold work.
export function clearOverlapMemo(): void {
  memo.clear();
}

// One segment both sides accept at once (undefined = any segment), memoized because pairs recur across checks.
function segmentWitness(x: Segment | undefined, y: Segment | undefined): string | undefined {
  if (x?.kind === 'chars' && y?.kind === 'chars' && x.literal !== undefined && y.literal !== undefined) {
    return x.literal === y.literal ? x.literal : undefined;
  }
  const kx = x?.key ?? '**';
  const ky = y?.key ?? '**';
  let row = memo.get(kx);
  const hit = row?.get(ky);
  if (hit !== undefined) return hit ?? undefined;
  const a = x === undefined || x.kind === 'globstar' ? ANY_NAME : x.items;
  const b = y === undefined || y.kind === 'globstar' ? ANY_NAME : y.items;
  const found = intersectSegments(a, b);
  if (row === undefined) {
    if (memo.size >= MEMO_SIZE) memo.clear();
    row = new Map();
    memo.set(kx, row);
  }
  row.set(ky, found ?? null);
  return found;
}

// Decides exactly whether some valid path matches both normalized patterns, with a short example when so.
// Breadth-first search over the product of the two segment automata (automaton.ts); each step consumes one
// path segment that both sides accept (found by the character-level search in segment-overlap.ts).
export function overlaps(a: string, b: string): Overlap {
  const pa = compilePattern(a);
  const pb = compilePattern(b);
  if (basesDiverge(a, b)) return { overlap: false };
  const A = automatonOf(pa);
  const B = automatonOf(pb);
  const Q = B.accepting.length;
  const states = A.accepting.length * Q * 2;
  const parent = new Int32Array(states).fill(-2);
  const label: Array<string | undefined> = new Array<string | undefined>(states);
  const queue = new Int32Array(states);
  let head = 0;
  let tail = 0;
  let found = -1;

  // Marks a state reached, closing over epsilon moves (a `**` matching zero segments); notes the first accepting one.
  const discover = (p: number, q: number, consumed: number, from: number, segment: string | undefined): void => {
    const s = (p * Q + q) * 2 + consumed;
    if (parent[s] !== -2) return;
    parent[s] = from;
    label[s] = segment;
    queue[tail++] = s;
    if (consumed === 1 && A.accepting[p] === 1 && B.accepting[q] === 1 && found < 0) found = s;
    for (const to of A.skips[p]!) discover(to, q, consumed, s, undefined);
    for (const to of B.skips[q]!) discover(p, to, consumed, s, undefined);
  };

  discover(A.start, B.start, 0, -1, undefined);
  while (head < tail && found < 0) {
    const s = queue[head++]!;
    const pq = s >> 1;
    const p = Math.floor(pq / Q);
    const q = pq % Q;
    for (const x of A.moves[p]!) {
      for (const y of B.moves[q]!) {
        const witness = segmentWitness(x.segment, y.segment);
        if (witness !== undefined) discover(x.to, y.to, 1, s, witness);
      }
    }
  }
  if (found < 0) return { overlap: false };
  const parts: string[] = [];
  for (let s = found; s >= 0; s = parent[s]!) {
    const part = label[s];
    if (part !== undefined) parts.push(part);
  }
  return { overlap: true, example: parts.reverse().join('/') };
}
