import { automatonOf } from './automaton';
import { type GlobCache, SHARED_CACHE } from './cache';
import { basesDiverge, literalBase, namesOnePath } from './syntax';

// Exact overlap of two normalized patterns. The argument (a path intersection is a product over segment
// pairs, decided one pair at a time by segment.ts): docs/design/overlap.md.

export interface Overlap {
  overlap: boolean;
  example?: string;
}

const UNDECIDED = undefined;
const NO_NAME = null;

// Decides exactly whether some valid path matches both normalized patterns, with a short example when so.
// Breadth-first search over the product of the two segment automata (automaton.ts, docs/design/overlap.md section
// 3); each step consumes one name both segments match, found by the cache's segment decider and kept per call
// in a flat array by segment ids, so the example is those names joined along the path found.
export function overlaps(a: string, b: string, cache: GlobCache = SHARED_CACHE): Overlap {
  const pa = cache.compiled(a);
  const pb = cache.compiled(b);
  if (basesDiverge(a, b)) return { overlap: false };
  const literal = literalOverlap(a, b);
  if (literal !== undefined) return literal;
  const A = automatonOf(pa);
  const B = automatonOf(pb);
  const Q = B.accepting.length;
  const nb = B.segments.length;
  const names = new Array<string | null | undefined>(A.segments.length * nb).fill(UNDECIDED);
  const states = A.accepting.length * Q * 2;
  const parent = new Int32Array(states).fill(-2);
  const via = new Int32Array(states).fill(-1); // the segment pair (slot in `names`) of a consuming step
  const queue = new Int32Array(states);
  let head = 0;
  let tail = 0;
  let found = -1;

  // Marks a state reached, closing over epsilon moves (a `**` matching zero segments); notes the first accepting one.
  const discover = (p: number, q: number, consumed: number, from: number, slot: number): void => {
    const s = (p * Q + q) * 2 + consumed;
    if (parent[s] !== -2) return;
    parent[s] = from;
    via[s] = slot;
    queue[tail++] = s;
    if (consumed === 1 && A.accepting[p] === 1 && B.accepting[q] === 1 && found < 0) found = s;
    for (const to of A.skips[p]!) discover(to, q, consumed, s, -1);
    for (const to of B.skips[q]!) discover(p, to, consumed, s, -1);
  };

  // The name segments x of A and y of B share (NO_NAME when none), decided once per call.
  const nameOf = (slot: number, x: number, y: number): string | null => {
    let name = names[slot];
    if (name === UNDECIDED) {
      name = cache.witness(A.segments[x], B.segments[y]) ?? NO_NAME;
      names[slot] = name;
    }
    return name;
  };

  discover(A.start, B.start, 0, -1, -1);
  while (head < tail && found < 0) {
    const s = queue[head++]!;
    const pq = s >> 1;
    const p = Math.floor(pq / Q);
    const q = pq % Q;
    // Stops at the first accepting state: the pairs left would only be decided for nothing.
    for (let i = 0; i < A.moves[p]!.length && found < 0; i++) {
      const x = A.moves[p]![i]!;
      for (let j = 0; j < B.moves[q]!.length && found < 0; j++) {
        const y = B.moves[q]![j]!;
        const slot = x.id * nb + y.id;
        if (nameOf(slot, x.id, y.id) !== NO_NAME) discover(x.to, y.to, 1, s, slot);
      }
    }
  }
  if (found < 0) return { overlap: false };
  const parts: string[] = [];
  for (let s = found; s >= 0; s = parent[s]!) if (via[s]! >= 0) parts.push(names[via[s]!]!);
  return { overlap: true, example: parts.reverse().join('/') };
}

// Two literal patterns name one path each: they overlap exactly when that is the same path. Answered without
// building automata (the hook's usual case: an edited file against the locks on it). Undefined when either is
// not a plain literal path (a glob, or a `.`/`..` segment, which no path has).
function literalOverlap(a: string, b: string): Overlap | undefined {
  if (!namesOnePath(a) || !namesOnePath(b)) return undefined;
  const path = literalBase(a);
  return path === literalBase(b) ? { overlap: true, example: path } : { overlap: false };
}
