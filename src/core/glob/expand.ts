import { type Item, UNIVERSE, classSet, single } from './charset';
export type { Item } from './charset';
import { type Atom, splitAtSlashes } from './syntax';
import type { Shape } from './segment-shape';

// A segment is `**` (zero or more whole segments) or a sequence of items matching one path segment.
export type Segment = { kind: 'globstar'; key: string } | { kind: 'chars'; items: Item[]; key: string; literal: string | undefined; shape?: Shape };

// One brace-free reading of the pattern: the segments a path must match, in order.
export interface Alternative {
  segments: Segment[];
  key: string;
  absolute: boolean;
}

type FlatAtom = Exclude<Atom, { kind: 'brace' }>;

export const GLOBSTAR: Segment = { kind: 'globstar', key: '**' };
const STAR: Item = { kind: 'star' };
const ANY: Item = { kind: 'set', set: UNIVERSE };

// Items of one pattern by code point (literals) and by class key: every position using the same set shares one
// item and one set object, so a long segment costs an array of pointers, and the segment decider's per-set
// work (its shift-and masks) is done once per distinct set. Made per compilation, so nothing outlives it.
interface Interned {
  chars: Map<number, Item>;
  classes: Map<string, Item>;
}

const newInterned = (): Interned => ({ chars: new Map(), classes: new Map() });

// Every brace-free reading of a sequence, in order (braces multiply; the complexity limits bound the count).
export function expandBraces(atoms: readonly Atom[]): FlatAtom[][] {
  let results: FlatAtom[][] = [[]];
  for (const atom of atoms) {
    if (atom.kind !== 'brace') {
      for (const r of results) r.push(atom);
      continue;
    }
    const options = atom.alternatives.flatMap((alt) => expandBraces(alt));
    results = results.flatMap((r) => options.map((o) => [...r, ...o]));
  }
  return results;
}

// Splits one reading into segments; empty segments (from `//` inside braces) vanish.
export function toAlternative(atoms: readonly FlatAtom[], interned: Interned = newInterned()): Alternative {
  const segments = splitAtSlashes(atoms)
    .filter((piece) => piece.length > 0)
    .map((piece) => toSegment(piece, interned));
  return { segments, key: segments.map((s) => s.key).join('/'), absolute: atoms[0]?.kind === 'slash' };
}

// Builds a segment: exactly `**` is a globstar; elsewhere runs of `*` collapse into one star.
function toSegment(atoms: readonly FlatAtom[], interned: Interned): Segment {
  if (atoms.length === 2 && atoms[0]!.kind === 'star' && atoms[1]!.kind === 'star') return GLOBSTAR;
  const items: Item[] = [];
  let key = '';
  let literal: string | undefined = '';
  for (const atom of atoms) {
    if (atom.kind === 'star') {
      if (items[items.length - 1]?.kind !== 'star') {
        items.push(STAR);
        key += '*';
      }
      literal = undefined;
    } else if (atom.kind === 'any') {
      items.push(ANY);
      key += '?';
      literal = undefined;
    } else if (atom.kind === 'class') {
      const set = classSet(atom.ranges, atom.negated);
      const classKey = `[${set.map(([lo, hi]) => `${lo.toString(16)}-${hi.toString(16)}`).join(',')}]`;
      let item = interned.classes.get(classKey);
      if (item === undefined) interned.classes.set(classKey, (item = { kind: 'set', set }));
      items.push(item);
      key += classKey;
      literal = undefined;
    } else if (atom.kind === 'char') {
      const ch = String.fromCodePoint(atom.cp);
      let item = interned.chars.get(atom.cp);
      if (item === undefined) interned.chars.set(atom.cp, (item = { kind: 'set', set: single(atom.cp) }));
      items.push(item);
      key += '*?[\\'.includes(ch) ? `\\${ch}` : ch;
      if (literal !== undefined) literal += ch;
    }
  }
  return { kind: 'chars', items, key, literal };
}

// All distinct readings of a parsed pattern.
export function expandPattern(atoms: readonly Atom[]): Alternative[] {
  const seen = new Map<string, Alternative>();
  const interned = newInterned();
  for (const flat of expandBraces(atoms)) {
    const alt = toAlternative(flat, interned);
    if (!seen.has(alt.key)) seen.set(alt.key, alt);
  }
  return [...seen.values()];
}
