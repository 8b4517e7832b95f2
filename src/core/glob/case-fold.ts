// Case folding under git's core.ignorecase, done on parsed atoms rather than pattern text: lower-casing the
// text of `[A-z]` would turn it into `[a-z]` and change what it matches. Paths are lower-cased as strings
// (see hooks/git-guard.ts), so a folded pattern only ever meets lower-case-stable characters.
import { type CharSet, canonical, complement, contains, intersect } from './charset';
import { type Atom, invalid } from './syntax';

type ClassAtom = Extract<Atom, { kind: 'class' }>;

// One code point that lower-casing changes, and its lower case (undefined when that is several code points, as
// for U+0130 "İ" → "i̇": no single path character can then be it).
type Lowering = readonly [number, number | undefined];

// The 128-code-point blocks holding every code point that lower-casing changes (Latin, Greek, Cyrillic,
// Armenian, Georgian, Cherokee, letterlike and enclosed symbols, Glagolitic, Coptic, fullwidth, Deseret, Osage,
// Vithkuqi, Old Hungarian, Garay, Warang Citi, Medefaidrin, Adlam). Scanning only these keeps the first fold
// under a millisecond; test/core/glob/case-fold.test.ts checks every code point against the running Node.
export const CASED_BLOCKS: ReadonlyArray<readonly [number, number]> = [
  [0x0, 0x27f],
  [0x300, 0x57f],
  [0x1080, 0x10ff],
  [0x1380, 0x13ff],
  [0x1c80, 0x1cff],
  [0x1e00, 0x1fff],
  [0x2100, 0x21ff],
  [0x2480, 0x24ff],
  [0x2c00, 0x2cff],
  [0xa600, 0xa7ff],
  [0xff00, 0xff7f],
  [0x10400, 0x105ff],
  [0x10c80, 0x10d7f],
  [0x11880, 0x118ff],
  [0x16e00, 0x16eff],
  [0x1e900, 0x1e97f],
];

let lowerings: Lowering[] | undefined;

// Every code point whose lower case differs from it, ascending. Built on first use, only when a class meets
// core.ignorecase.
export function lowerCaseTable(): readonly Lowering[] {
  if (lowerings !== undefined) return lowerings;
  const table: Lowering[] = [];
  for (const [first, last] of CASED_BLOCKS) {
    for (let cp = first; cp <= last; cp++) {
      const ch = String.fromCodePoint(cp);
      const lower = Array.from(ch.toLowerCase());
      if (lower.length === 1 && lower[0] === ch) continue;
      table.push([cp, lower.length === 1 ? lower[0]!.codePointAt(0)! : undefined]);
    }
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
// keeps, so: a positive class becomes the lower cases of its members (and holds no other character); a negated
// class's members gain every character whose lower case is a member, so it excludes both cases. Why that keeps
// overlap exact: a folded pattern can match a character c that lower-casing changes only through `?`, `*` or a
// negated class, and each of those then also matches lower(c), so any common path has a lower-cased twin that
// both patterns match (for U+0130, whose lower case is two characters, any of the many characters they both
// still match will do). A class without cased members is kept as written.
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
