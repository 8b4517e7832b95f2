import type { CharSet } from './charset';
import type { Item } from './expand';
import { type Chunk, type Shape, anyChar, chunksOf, commonChar, itemsMeet, setOf } from './segment-shape';

// Case 4.3 of docs/design/overlap.md: a star-free segment against a starred one, by leftmost placement of the starred
// side's chunks (exact because whether a chunk fits a position depends on that position alone).

type SetItem = Extract<Item, { kind: 'set' }>;

// 4.3: a string of the star-free side's length that the starred side matches (any string: the dot rule is
// namedWitness's). Anchor the starred prefix and suffix, lay each chunk at its leftmost fit, then spell.
export function mixedWitness(fixedShape: Shape, starredShape: Shape): string | undefined {
  const fixed = fixedShape.items;
  const starred = starredShape.items;
  const n = fixed.length;
  const { first, last } = starredShape;
  const tailLength = starred.length - 1 - last;
  const end = n - tailLength;
  if (first > end || fixedShape.empty) return undefined;
  for (let r = 0; r < first; r++) if (!itemsMeet(fixed[r]!, starred[r]!)) return undefined;
  for (let r = 0; r < tailLength; r++) if (!itemsMeet(fixed[end + r]!, starred[last + 1 + r]!)) return undefined;
  const text = fixedShape.text;
  const laid = new Int32Array(n).fill(-1); // index into `starred` of the item laid over each position, or -1
  for (let r = 0; r < first; r++) laid[r] = r;
  for (let r = 0; r < tailLength; r++) laid[end + r] = last + 1 + r;
  let from = first;
  for (const chunk of chunksOf(starredShape)) {
    const at = place(fixed, text, starred, chunk, from, end);
    if (at < 0) return undefined;
    for (let i = chunk.start; i < chunk.stop; i++) laid[at + i - chunk.start] = i;
    from = at + (chunk.stop - chunk.start);
  }
  // Every position's constraint has been checked, so each one spells; a literal side spells itself.
  if (text !== undefined) return text;
  const cps: number[] = new Array<number>(n);
  for (let i = 0; i < n; i++) {
    const own = (fixed[i] as SetItem).set;
    const cp = laid[i]! < 0 ? anyChar(own) : commonChar(own, setOf(starred[laid[i]!]!));
    if (cp === undefined) return undefined;
    cps[i] = cp;
  }
  return String.fromCodePoint(...cps);
}

// Leftmost index in [from, end) where the chunk fits position by position, or -1.
function place(fixed: readonly Item[], text: string | undefined, starred: readonly Item[], chunk: Chunk, from: number, end: number): number {
  const k = chunk.stop - chunk.start;
  if (text !== undefined && chunk.needle !== undefined) {
    const at = text.indexOf(chunk.needle, from);
    return at >= 0 && at + k <= end ? at : -1;
  }
  return shiftAnd(fixed, starred, chunk.start, k, from, end);
}

// Shift-and over the fixed positions: bit r of the state says the chunk's first r+1 items fit ending here;
// O(n·⌈k/32⌉) plus one mask per distinct code point or set, instead of O(n·k).
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
