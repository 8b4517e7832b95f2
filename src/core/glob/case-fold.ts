// Case folding under git's core.ignorecase, done on parsed atoms rather than pattern text: lower-casing the
// text of `[A-z]` would turn it into `[a-z]` and change what it matches. Paths are lower-cased as strings
// (see hooks/git-guard.ts), so a folded pattern only ever meets lower-case-stable characters.
import { type CharSet, canonical, complement, contains, intersect } from './charset';
import { type Atom, invalid } from './parse';

type ClassAtom = Extract<Atom, { kind: 'class' }>;

// One code point that lower-casing changes, and its lower case (undefined when that is several code points, as
// for U+0130 "İ" → "i̇": no single path character can then be it).
type Lowering = readonly [number, number | undefined];

// No code point above this changes when lower-cased (test/core/glob/case-fold.test.ts checks every one).
export const LAST_CASED = 0x1ffff;

let lowerings: Lowering[] | undefined;

// Every code point whose lower case differs from it, ascending. Built on first use (about 10 ms), only when a
// class meets core.ignorecase.
export function lowerCaseTable(): readonly Lowering[] {
  if (lowerings !== undefined) return lowerings;
  const changes = /\p{Changes_When_Lowercased}/u;
  const table: Lowering[] = [];
  for (let cp = 0; cp <= LAST_CASED; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const ch = String.fromCodePoint(cp);
    if (!changes.test(ch)) continue;
    const lower = Array.from(ch.toLowerCase());
    table.push([cp, lower.length === 1 ? lower[0]!.codePointAt(0)! : undefined]);
  }
  lowerings = table;
  return table;
}

// Folds one segment's atoms (braces recursively): literal runs are lower-cased as text, as paths are; classes
// fold what they match.
export function foldCaseAtoms(atoms: readonly Atom[]): Atom[] {
  const out: Atom[] = [];
  let run = '';
  const flush = (): void => {
    for (const ch of run.toLowerCase()) out.push({ kind: 'char', cp: ch.codePointAt(0)! });
    run = '';
  };
  for (const atom of atoms) {
    if (atom.kind === 'char') {
      run += String.fromCodePoint(atom.cp);
      continue;
    }
    flush();
    if (atom.kind === 'class') out.push(foldClass(atom));
    else if (atom.kind === 'brace') out.push({ kind: 'brace', alternatives: atom.alternatives.map(foldCaseAtoms) });
    else out.push(atom);
  }
  flush();
  return out;
}

// A class matches a path character iff its written members hold that character's lower or upper case (git's
// wildmatch under WM_CASEFOLD, negation applied after). Folded paths hold only characters that lower-casing
// keeps, so: a positive class becomes the lower cases of its members; a negated class's members gain every
// character whose lower case is a member, so it excludes both cases. A class without cased members is kept as
// written.
export function foldClass(atom: ClassAtom): ClassAtom {
  const written = canonical(atom.ranges.map(([lo, hi]) => [lo, hi]));
  const changed: number[] = [];
  const lowered: number[] = [];
  for (const [cp, lower] of lowerCaseTable()) {
    if (!contains(written, cp)) continue;
    changed.push(cp);
    if (lower !== undefined) lowered.push(lower);
  }
  if (atom.negated) {
    const members = canonical([...written.map(toRange), ...lowered.map(point)]);
    const variants = lowerCaseTable().filter(([cp, lower]) => lower !== undefined && contains(members, lower) && !contains(members, cp));
    if (variants.length === 0 && lowered.every((cp) => contains(written, cp))) return atom;
    return { kind: 'class', negated: true, ranges: canonical([...members.map(toRange), ...variants.map(([cp]) => point(cp))]).map(toRange) };
  }
  if (changed.length === 0) return atom;
  const kept = intersect(written, complement(canonical(changed.map(point))));
  const ranges = canonical([...kept.map(toRange), ...lowered.map(point)]).map(toRange);
  if (ranges.length === 0) throw invalid('a class matches no character once case is folded (core.ignorecase is true)');
  return { kind: 'class', negated: false, ranges };
}

function point(cp: number): [number, number] {
  return [cp, cp];
}

function toRange(range: CharSet[number]): [number, number] {
  return [range[0], range[1]];
}
