import { type CharSet, type Item, DOT, UNIVERSE, contains, intersect, meets, pickWitness } from './charset';

// What the segment decider (segment.ts, docs/design/overlap.md section 4) reads of one side, and how it picks code
// points.

// The facts of one side, worked out once per segment (kept on the compiled segment) rather than once per pair:
// where its stars are, its sets spelled alone (stars empty), its literal text, and its star-separated chunks.
export interface Shape {
  items: readonly Item[];
  first: number; // index of the first star, -1 when none
  last: number; // index of the last star, -1 when none
  // The items before the first star (or all of them), those strictly between the first and last star (stars
  // empty) and those after the last, each set spelled alone; made when a witness first needs them.
  spelled?: readonly [prefix: string, middle: string, suffix: string];
  empty: boolean; // some set is empty, so the segment matches nothing
  text: string | undefined; // the whole star-free segment when each item is one UTF-16 unit (for indexOf)
  chunks?: Chunk[]; // the non-empty star-free runs between the first and last star, made on first use
}

export interface Chunk {
  start: number;
  stop: number;
  needle: string | undefined; // its text when each item is one UTF-16 unit
}

// Works out a shape (linear in the segment).
export function shapeOf(items: readonly Item[]): Shape {
  let first = -1;
  let last = -1;
  let empty = false;
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    if (item.kind === 'set') empty ||= item.set.length === 0;
    else {
      if (first < 0) first = i;
      last = i;
    }
  }
  const text = first < 0 ? literalText(items, 0, items.length) : undefined;
  return { items, first, last, empty, text };
}

// The shape's chunks, each with its text for indexOf when it has one.
export function chunksOf(shape: Shape): Chunk[] {
  if (shape.chunks !== undefined) return shape.chunks;
  const { items, first, last } = shape;
  const chunks: Chunk[] = [];
  for (let start = first + 1; first >= 0 && start <= last;) {
    let stop = start;
    while (items[stop]!.kind !== 'star') stop++;
    if (stop > start) chunks.push({ start, stop, needle: literalText(items, start, stop) });
    start = stop + 1;
  }
  shape.chunks = chunks;
  return chunks;
}

// The shape's prefix, middle and suffix spelled (its sets are known non-empty).
export function spelledParts(shape: Shape): readonly [string, string, string] {
  if (shape.spelled !== undefined) return shape.spelled;
  const parts = ['', '', ''];
  let part = 0;
  shape.items.forEach((item, i) => {
    if (item.kind === 'star') part = i === shape.last ? 2 : 1;
    else parts[part] += String.fromCodePoint(anyChar(item.set)!);
  });
  shape.spelled = [parts[0]!, parts[1]!, parts[2]!];
  return shape.spelled;
}

// The shape of "any one name" (a step inside `**`), all worked out.
export const ANY_NAME: Shape = { ...shapeOf([{ kind: 'star' }]), spelled: ['', '', ''], chunks: [] };

// The set an item draws one code point from (a star's is the universe).
export function setOf(item: Item): CharSet {
  return item.kind === 'star' ? UNIVERSE : item.set;
}

// A code point of the set: a readable non-dot if there is one, `.` only when nothing else fits.
export function anyChar(set: CharSet): number | undefined {
  return pickWitness(set) ?? (contains(set, DOT) ? DOT : undefined);
}

// A code point both sets hold (same preference as anyChar), without building the intersection for a literal.
export function commonChar(x: CharSet, y: CharSet): number | undefined {
  if (x === y) return anyChar(x);
  const only = x.length === 1 && x[0]![0] === x[0]![1] ? x[0]![0] : y.length === 1 && y[0]![0] === y[0]![1] ? y[0]![0] : undefined;
  if (only !== undefined) return contains(x, only) && contains(y, only) ? only : undefined;
  return anyChar(intersect(x, y));
}

// Whether two items can take the same code point (a star stands for one code point of its run here).
export function itemsMeet(x: Item, y: Item): boolean {
  return meets(setOf(x), setOf(y));
}

// The text of items[from, to) when each is one code point of one UTF-16 unit, else undefined (lets literal
// chunks be placed with indexOf, and a literal side spell itself).
export function literalText(items: readonly Item[], from: number, to: number): string | undefined {
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
