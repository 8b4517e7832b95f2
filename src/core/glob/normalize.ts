import { IcError } from '../errors';
import { foldCaseAtoms } from './case-fold';
import { expandBraces, toAlternative } from './expand';
import { SHARED_CACHE } from './cache';
import { overlaps } from './overlap';
import { type Atom, checkCharacters, invalid, isLiteral, namesOnePath, parsePattern, splitAtSlashes, toNFC, unescapeLiteral, validateComplexity } from './syntax';

export interface NormalizeOptions {
  root: string; // canonical absolute scope root, '/'-separated, no trailing slash
  ignoreCase?: boolean; // git core.ignorecase: fold literal characters and what classes match to lower case
  isDirectory?: (relativePath: string) => boolean; // a literal pattern naming an existing dir means the whole dir
  // The directory a relative pattern is read from, as names below the root (git reads a pathspec from the
  // current directory); absent or empty: the root.
  base?: readonly string[];
  // The canonical form of an absolute path (symlinks resolved), applied to the pattern's literal leading
  // segments so two spellings of one file are one key.
  resolvePath?: (absolutePath: string) => string;
}

const GLOBSTAR_ATOMS: Atom[] = [{ kind: 'star' }, { kind: 'star' }];

// Brings a user's pattern to the one canonical form stored and compared: relative to the scope root,
// `.`/`..`/`//` folded, symlinks in the literal part resolved, directories widened to `dir/**`, NFC,
// optionally case-folded, escapes canonical. Every step works on parsed segments, never on text.
export function normalizePattern(input: string, options: NormalizeOptions): string {
  validateComplexity(input);
  checkCharacters(input);
  const root = toNFC(options.root);
  const atoms = parsePattern(toNFC(input));
  const absolute = atoms[0]?.kind === 'slash';
  const directory = atoms.length > 0 && atoms[atoms.length - 1]!.kind === 'slash';
  const { kept, climbs } = foldDots(
    splitAtSlashes(atoms).filter((s) => s.length > 0),
    absolute,
  );
  // A trailing `/` means the whole directory, and so does a relative pattern naming its base (`.`, `..`).
  if ((directory || (!absolute && kept.length === 0)) && !isGlobstar(kept[kept.length - 1])) kept.push(GLOBSTAR_ATOMS);
  if (!absolute) checkBraceReadings(kept); // on the text as typed, so the base directory cannot change the verdict
  const rootNames = root.split('/').filter((s) => s !== '');
  const written = absolute ? kept : [...rootNames.map(literalAtoms), ...baseSegments(options.base, climbs), ...kept];
  const { path, resolved } = resolveLiteralHead(written, options.resolvePath);
  let folded = stripRoot(path, rootNames, input, options.ignoreCase === true, resolved);
  if (absolute) checkBraceReadings(folded);
  if (options.ignoreCase === true) folded = folded.map(foldCaseAtoms);
  let result = folded.length === 0 ? '**' : folded.map((segment) => formatAtoms(segment, false, true)).join('/');
  if (isLiteral(result) && options.isDirectory?.(unescapeLiteral(result)) === true) result += '/**';
  // The stored form must be valid and match a path. A literal (an edit's usual case) is checked as text, as
  // overlaps would; any other pattern is compiled (validated, and cached for the overlap checks to come).
  if (namesOnePath(result)) {
    if (result !== input) {
      validateComplexity(result);
      parsePattern(result);
    }
    return result;
  }
  SHARED_CACHE.compiled(result, result === input);
  if (!overlaps(result, result).overlap) {
    throw invalid(`pattern "${input}" can never match a path (a segment could only be "." or "..")`);
  }
  return result;
}

// The base directory's segments left after a relative pattern's leading `..`s climbed out of them.
function baseSegments(base: readonly string[] | undefined, climbs: number): Atom[][] {
  const names = base ?? [];
  if (climbs > names.length) throw new IcError('OUTSIDE_SCOPE', 'pattern climbs above the scope root with ".."');
  return names.slice(0, names.length - climbs).map(literalAtoms);
}

// A name as a literal segment: every character stands for itself, whatever it is (`[id]` stays a name).
function literalAtoms(name: string): Atom[] {
  return Array.from(name, (ch): Atom => ({ kind: 'char', cp: ch.codePointAt(0)! }));
}

// Replaces the literal leading segments of an absolute segment list by their canonical path.
function resolveLiteralHead(segments: Atom[][], resolvePath: ((path: string) => string) | undefined): { path: Atom[][]; resolved?: string } {
  if (resolvePath === undefined) return { path: segments };
  const names: string[] = [];
  for (const segment of segments) {
    const name = literalName(segment);
    if (name === undefined) break;
    names.push(name);
  }
  const written = `/${names.join('/')}`;
  const real = toNFC(resolvePath(written));
  if (real === written) return { path: segments };
  const realNames = real.split('/').filter((s) => s !== '');
  return { path: [...realNames.map(literalAtoms), ...segments.slice(names.length)], resolved: real };
}

// The name a segment spells when it is all literal characters, else undefined.
function literalName(segment: readonly Atom[]): string | undefined {
  let name = '';
  for (const atom of segment) {
    if (atom.kind !== 'char') return undefined;
    name += String.fromCodePoint(atom.cp);
  }
  return name;
}

function isGlobstar(segment: readonly Atom[] | undefined): boolean {
  return segment !== undefined && segment.length === 2 && segment.every((a) => a.kind === 'star');
}

// Folds `.` away and lets `..` cancel the literal segment before it. Leading `..`s of a relative pattern are
// counted (they climb out of the base directory); an absolute one's are dropped (`/..` is `/`).
function foldDots(segments: readonly Atom[][], absolute: boolean): { kept: Atom[][]; climbs: number } {
  const kept: Atom[][] = [];
  let climbs = 0;
  for (const segment of segments) {
    const name = literalName(segment);
    if (name === '.') continue;
    if (name !== '..') {
      kept.push(segment);
      continue;
    }
    const previous = kept[kept.length - 1];
    if (previous === undefined) {
      if (!absolute) climbs++;
      continue;
    }
    if (literalName(previous) === undefined) {
      throw invalid('".." after a wildcard or brace segment is ambiguous; write the path without it');
    }
    kept.pop();
  }
  return { kept, climbs };
}

// Makes an absolute segment list relative: its leading segments must spell the scope root literally
// (case-insensitively under core.ignorecase).
function stripRoot(segments: Atom[][], rootNames: readonly string[], input: string, ignoreCase: boolean, resolved: string | undefined): Atom[][] {
  const root = `/${rootNames.join('/')}`;
  const where = resolved === undefined ? '' : ` (through a symlink it is ${resolved})`;
  // Made only when thrown: an error captures a stack trace, and every pattern a hook stores comes through here.
  const outside = () => new IcError('OUTSIDE_SCOPE', `pattern "${input}" is outside the scope ${root}${where}`, { scope: root });
  if (segments.length < rootNames.length) throw outside();
  const fold = (name: string | undefined): string | undefined => (ignoreCase ? name?.toLowerCase() : name);
  rootNames.forEach((name, i) => {
    if (fold(literalName(segments[i]!)) !== fold(name)) throw outside();
  });
  return segments.slice(rootNames.length);
}

// Refuses brace readings that would smuggle in what the top level folds away: a leading `/`, or a `.`/`..` segment.
function checkBraceReadings(segments: readonly Atom[][]): void {
  if (!segments.some((segment) => segment.some((a) => a.kind === 'brace'))) return;
  const atoms = segments.flatMap((segment, i): Atom[] => (i === 0 ? segment : [{ kind: 'slash' }, ...segment]));
  for (const flat of expandBraces(atoms)) {
    if (flat[0]?.kind === 'slash') {
      throw invalid('a brace alternative cannot start with "/"; write the absolute part outside the braces');
    }
    for (const segment of toAlternative(flat).segments) {
      if (segment.kind === 'chars' && (segment.literal === '.' || segment.literal === '..')) {
        throw invalid('"." and ".." cannot appear inside braces; write each path out');
      }
    }
  }
}

const ALWAYS_ESCAPED = new Set(['\\', '*', '?', '[', ']', '{', '}']);
const CLASS_ESCAPED = new Set(['\\', ']', '[', '-', '!', '^']);
const WILDCARD_TEXT = { any: '?', star: '*', slash: '/' } as const;

// Writes atoms back as canonical pattern text: needless escapes dropped, needed ones kept, so equal
// patterns compare equal as strings (a renewal finds its own row). `inBrace` makes `,` special, `atStart`
// a leading `!`.
function formatAtoms(atoms: readonly Atom[], inBrace: boolean, atStart: boolean): string {
  let out = '';
  let prev = '';
  for (const atom of atoms) {
    let text: string;
    if (atom.kind === 'char') {
      const ch = String.fromCodePoint(atom.cp);
      const escape = ALWAYS_ESCAPED.has(ch) || (inBrace && ch === ',') || (atStart && out === '' && ch === '!') || (ch === '(' && '+@!*?'.includes(prev) && prev !== '');
      text = escape ? `\\${ch}` : ch;
    } else if (atom.kind === 'class') text = `[${atom.negated ? '!' : ''}${atom.ranges.map(formatRange).join('')}]`;
    else if (atom.kind === 'brace') text = `{${atom.alternatives.map((alt) => formatAtoms(alt, true, false)).join(',')}}`;
    else text = WILDCARD_TEXT[atom.kind];
    out += text;
    prev = text.length === 1 ? text : '';
  }
  return out;
}

// One class member or range, escaping what the class syntax would otherwise read.
function formatRange([lo, hi]: readonly [number, number]): string {
  const one = (cp: number): string => {
    const ch = String.fromCodePoint(cp);
    return CLASS_ESCAPED.has(ch) ? `\\${ch}` : ch;
  };
  return lo === hi ? one(lo) : `${one(lo)}-${one(hi)}`;
}
