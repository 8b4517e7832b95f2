import { type CharSet, DOT, complement, intersect } from './charset';
import type { Item, Segment } from './expand';
import { ANY_NAME, type Chunk, type Shape, anyChar, chunksOf, commonChar, itemsMeet, setOf, shapeOf, spelledParts } from './segment-shape';

// The one segment decider: a name two segments both match, or undefined when there is none. Exact for every
// length; the dot rule (a name is never "", "." or "..") is applied here and nowhere else. The case split and
// why each case is exact: docs/design/overlap.md, section 4 (case 4.3 at the end, per-side facts in
// segment-shape.ts).

type SetItem = Extract<Item, { kind: 'set' }>;

const NON_DOT: CharSet = complement([[DOT, DOT]]);

// A name both segments match; undefined for a segment means "any one name" (a step inside `**`, 4.4).
export function segmentWitness(x: Segment | undefined, y: Segment | undefined): string | undefined {
  if (!isLiteralPair(x, y)) return shapeWitness(shapeOfSegment(x), shapeOfSegment(y));
  // Literals (and "any name" against one) need no case split: the literal is the only candidate.
  const lx = literalOf(x);
  const ly = literalOf(y);
  const name = lx === ANY ? ly : ly === ANY || lx === ly ? lx : undefined;
  if (name === ANY) return 'x';
  return name === undefined || name === '.' || name === '..' ? undefined : name;
}

// Whether both sides are literal names or "any name": then the answer costs a string comparison.
export function isLiteralPair(x: Segment | undefined, y: Segment | undefined): boolean {
  return literalOf(x) !== undefined && literalOf(y) !== undefined;
}

const ANY = '\u0000'; // stands for "any name" among literals: no literal holds NUL

// A segment's literal text, ANY for "any name", undefined when it has a wildcard or class.
function literalOf(segment: Segment | undefined): string | undefined {
  if (segment === undefined || segment.kind === 'globstar') return ANY;
  return segment.literal;
}

// A segment's shape, made on first use and kept on the compiled segment.
function shapeOfSegment(segment: Segment | undefined): Shape {
  if (segment === undefined || segment.kind === 'globstar') return ANY_NAME;
  segment.shape ??= shapeOf(segment.items);
  return segment.shape;
}

// Splits on which sides hold a star (4.1 both star-free, 4.2 both starred, 4.3 one of each).
export function shapeWitness(a: Shape, b: Shape): string | undefined {
  if (a.empty || b.empty) return undefined;
  const aStars = a.first >= 0;
  const bStars = b.first >= 0;
  if (aStars && bStars) return starredWitness(a, b);
  if (!aStars && !bStars) return fixedWitness(a.items, b.items);
  return aStars ? namedWitness(b, a) : namedWitness(a, b);
}

// 4.1: same length, a common code point at every position; a name unless it is one or two forced dots.
function fixedWitness(a: readonly Item[], b: readonly Item[]): string | undefined {
  if (a.length !== b.length) return undefined;
  const cps: number[] = [];
  let named = a.length > 2;
  for (let i = 0; i < a.length; i++) {
    const cp = commonChar((a[i] as SetItem).set, (b[i] as SetItem).set);
    if (cp === undefined) return undefined;
    if (cp !== DOT) named = true;
    cps.push(cp);
  }
  return named ? String.fromCodePoint(...cps) : undefined;
}

// 4.2: merged prefix · A's middle · B's middle · merged suffix, with an `x` in the gap both first stars cover
// when that string is no name (or would start with a dot after an empty prefix: `x.ts` reads better). Only
// the positions both prefixes (or suffixes) have are merged per pair; the rest was spelled with the shape.
function starredWitness(a: Shape, b: Shape): string | undefined {
  const pa = a.first;
  const pb = b.first;
  const sa = a.items.length - 1 - a.last;
  const sb = b.items.length - 1 - b.last;
  if (!runsMeet(a.items, b.items, Math.min(pa, pb), false) || !runsMeet(a.items, b.items, Math.min(sa, sb), true)) return undefined;
  const [prefixA, middleA, suffixA] = spelledParts(a);
  const [prefixB, middleB, suffixB] = spelledParts(b);
  const head = mergeRuns(a.items, b.items, Math.min(pa, pb), false) + (pa > pb ? dropFirst(prefixA, pb) : dropFirst(prefixB, pa));
  const rest = middleA + middleB + (sa > sb ? dropLast(suffixA, sb) : dropLast(suffixB, sa)) + mergeRuns(a.items, b.items, Math.min(sa, sb), true);
  const whole = head + rest;
  const needsX = whole === '' || whole === '.' || whole === '..' || (head === '' && rest.startsWith('.'));
  return needsX ? `${head}x${rest}` : whole;
}

// Whether the first n positions of two star-free runs (the last n, aligned from the end, when `fromEnd`)
// have a common code point each.
function runsMeet(a: readonly Item[], b: readonly Item[], n: number, fromEnd: boolean): boolean {
  for (let r = 0; r < n; r++) {
    if (!itemsMeet(fromEnd ? a[a.length - n + r]! : a[r]!, fromEnd ? b[b.length - n + r]! : b[r]!)) return false;
  }
  return true;
}

// Spells those positions, once runsMeet has said they meet.
function mergeRuns(a: readonly Item[], b: readonly Item[], n: number, fromEnd: boolean): string {
  let out = '';
  for (let r = 0; r < n; r++) {
    const x = fromEnd ? a[a.length - n + r]! : a[r]!;
    const y = fromEnd ? b[b.length - n + r]! : b[r]!;
    out += String.fromCodePoint(commonChar(setOf(x), setOf(y))!);
  }
  return out;
}

// A spelled string without its first n code points.
function dropFirst(text: string, n: number): string {
  let i = 0;
  for (let k = 0; k < n; k++) i += isHighSurrogate(text.charCodeAt(i)) ? 2 : 1;
  return text.slice(i);
}

// A spelled string without its last n code points.
function dropLast(text: string, n: number): string {
  let i = text.length;
  for (let k = 0; k < n; k++) i -= isHighSurrogate(text.charCodeAt(i - 2)) ? 2 : 1;
  return text.slice(0, i);
}

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

// 4.3 (mixedWitness, below) with the dot rule: three or more code points always make a name. One or two that the spelling made
// all dots may still have a name elsewhere in the layout, so then try each position restricted to non-dots.
function namedWitness(fixed: Shape, starred: Shape): string | undefined {
  const found = mixedWitness(fixed, starred);
  if (found === undefined || (found !== '.' && found !== '..')) return found;
  for (let p = 0; p < fixed.items.length; p++) {
    const restricted = fixed.items.map((item, i): Item => (i === p ? { kind: 'set', set: intersect((item as SetItem).set, NON_DOT) } : item));
    const named = mixedWitness(shapeOf(restricted), starred);
    if (named !== undefined) return named;
  }
  return undefined;
}

// Case 4.3 of docs/design/overlap.md: a star-free segment against a starred one, by leftmost placement of the starred
// side's chunks (exact because whether a chunk fits a position depends on that position alone).

// 4.3: a string of the star-free side's length that the starred side matches (any string: the dot rule is
// namedWitness's). Anchor the starred prefix and suffix, lay each chunk at its leftmost fit, then spell.
function mixedWitness(fixedShape: Shape, starredShape: Shape): string | undefined {
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
