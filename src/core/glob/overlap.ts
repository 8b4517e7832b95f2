import { type CompiledPattern, compilePattern } from './compile';
import type { Item, Segment } from './expand';
import { basesDiverge } from './scan';
import { intersectSegments } from './segment-overlap';

export interface Overlap {
  overlap: boolean;
  example?: string;
}

const ANY_NAME: readonly Item[] = [{ kind: 'star' }];
const MEMO_SIZE = 8192;
const memo = new Map<string, string | null>();

// One segment both patterns accept at once, memoized because the same segment pairs recur across checks.
function segmentWitness(x: Segment, y: Segment): string | undefined {
  if (x.kind === 'chars' && y.kind === 'chars' && x.literal !== undefined && y.literal !== undefined) {
    return x.literal === y.literal ? x.literal : undefined;
  }
  const key = `${x.key}\u0000${y.key}`;
  const hit = memo.get(key);
  if (hit !== undefined) return hit ?? undefined;
  const a = x.kind === 'globstar' ? ANY_NAME : x.items;
  const b = y.kind === 'globstar' ? ANY_NAME : y.items;
  const found = intersectSegments(a, b);
  if (memo.size >= MEMO_SIZE) memo.clear();
  memo.set(key, found ?? null);
  return found;
}

// The segment automaton of a whole pattern: every alternative laid end to end, `undefined` marking each end.
interface Layout {
  segments: Array<Segment | undefined>;
  starts: number[];
}

// Lays out the alternatives so one product search covers all pairs of alternatives at once.
function layout(pattern: CompiledPattern): Layout {
  const segments: Array<Segment | undefined> = [];
  const starts: number[] = [];
  for (const alt of pattern.alternatives) {
    starts.push(segments.length);
    segments.push(...alt.segments, undefined);
  }
  return { segments, starts };
}

// Decides exactly whether some valid path matches both normalized patterns, with a short example when so.
// Breadth-first search over the product of the two segment automata; each step consumes one path segment
// that both sides accept (found by the character-level search in segment-overlap.ts).
export function overlaps(a: string, b: string): Overlap {
  const pa = compilePattern(a);
  const pb = compilePattern(b);
  if (basesDiverge(a, b)) return { overlap: false };
  const A = layout(pa);
  const B = layout(pb);
  const Q = B.segments.length;
  const states = A.segments.length * Q * 2;
  const parent = new Int32Array(states).fill(-2);
  const label: Array<string | undefined> = new Array<string | undefined>(states);
  const queue = new Int32Array(states);
  let head = 0;
  let tail = 0;
  let found = -1;

  // Marks a state reached, closing over globstars that match zero segments; notes the first accepting state.
  const discover = (p: number, q: number, consumed: number, from: number, segment: string | undefined): void => {
    const s = (p * Q + q) * 2 + consumed;
    if (parent[s] !== -2) return;
    parent[s] = from;
    label[s] = segment;
    queue[tail++] = s;
    const x = A.segments[p];
    const y = B.segments[q];
    if (x === undefined && y === undefined && consumed === 1 && found < 0) found = s;
    if (x?.kind === 'globstar') discover(p + 1, q, consumed, s, undefined);
    if (y?.kind === 'globstar') discover(p, q + 1, consumed, s, undefined);
  };

  for (const p of A.starts) for (const q of B.starts) discover(p, q, 0, -1, undefined);
  while (head < tail && found < 0) {
    const s = queue[head++]!;
    const pq = s >> 1;
    const p = Math.floor(pq / Q);
    const q = pq % Q;
    const x = A.segments[p];
    const y = B.segments[q];
    if (x === undefined || y === undefined) continue;
    const witness = segmentWitness(x, y);
    if (witness === undefined) continue;
    discover(x.kind === 'globstar' ? p : p + 1, y.kind === 'globstar' ? q : q + 1, 1, s, witness);
  }
  if (found < 0) return { overlap: false };
  const parts: string[] = [];
  for (let s = found; s >= 0; s = parent[s]!) {
    const part = label[s];
    if (part !== undefined) parts.push(part);
  }
  return { overlap: true, example: parts.reverse().join('/') };
}
