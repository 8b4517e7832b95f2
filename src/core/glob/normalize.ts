import { IcError } from '../errors';
import { expandBraces, toAlternative } from './expand';
import { formatAtoms } from './format';
import { validateComplexity } from './limits';
import { overlaps } from './overlap';
import { type Atom, checkCharacters, invalid, parsePattern } from './parse';
import { isLiteral, unescapeLiteral } from './scan';

export interface NormalizeOptions {
  root: string; // canonical absolute scope root, '/'-separated, no trailing slash
  ignoreCase?: boolean; // git core.ignorecase: fold the pattern to lower case
  isDirectory?: (relativePath: string) => boolean; // a literal pattern naming an existing dir means the whole dir
}

const GLOBSTAR_ATOMS: Atom[] = [{ kind: 'star' }, { kind: 'star' }];

// Brings a user's pattern to the one canonical form stored and compared: relative to the scope root,
// `.`/`..`/`//` folded, directories widened to `dir/**`, NFC, optionally lower case, escapes canonical.
export function normalizePattern(input: string, options: NormalizeOptions): string {
  validateComplexity(input);
  checkCharacters(input);
  let text = input.normalize('NFC');
  let root = options.root.normalize('NFC');
  if (options.ignoreCase === true) {
    text = text.toLowerCase();
    root = root.toLowerCase();
  }
  const atoms = parsePattern(text);
  const { segments, absolute, directory } = splitTopLevel(atoms);
  let folded = foldDots(segments, absolute);
  if (absolute) folded = stripRoot(folded, root, input);
  if (directory && !isGlobstar(folded[folded.length - 1])) folded.push(GLOBSTAR_ATOMS);
  let result = folded.length === 0 ? '**' : folded.map(formatAtoms).join('/');
  if (isLiteral(result) && options.isDirectory?.(unescapeLiteral(result)) === true) result += '/**';
  checkBraceReadings(folded.flatMap((segment, i): Atom[] => (i === 0 ? segment : [{ kind: 'slash' }, ...segment])));
  validateComplexity(result);
  if (!overlaps(result, result).overlap) {
    throw invalid(`pattern "${input}" can never match a path (a segment could only be "." or "..")`);
  }
  return result;
}

// Cuts the top level at its slashes (slashes inside braces stay put); notes a leading and a trailing slash.
function splitTopLevel(atoms: readonly Atom[]): { segments: Atom[][]; absolute: boolean; directory: boolean } {
  const segments: Atom[][] = [];
  let current: Atom[] = [];
  for (const atom of atoms) {
    if (atom.kind === 'slash') {
      segments.push(current);
      current = [];
    } else current.push(atom);
  }
  segments.push(current);
  return {
    segments: segments.filter((s) => s.length > 0),
    absolute: atoms[0]?.kind === 'slash',
    directory: atoms.length > 0 && atoms[atoms.length - 1]!.kind === 'slash',
  };
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

// Tells whether a segment is exactly `**`.
function isGlobstar(segment: readonly Atom[] | undefined): boolean {
  return segment !== undefined && segment.length === 2 && segment.every((a) => a.kind === 'star');
}

// Folds `.` away and lets `..` cancel the literal segment before it; escaping the top is OUTSIDE_SCOPE.
function foldDots(segments: readonly Atom[][], absolute: boolean): Atom[][] {
  const out: Atom[][] = [];
  for (const segment of segments) {
    const name = literalName(segment);
    if (name === '.') continue;
    if (name !== '..') {
      out.push(segment);
      continue;
    }
    const previous = out[out.length - 1];
    if (previous === undefined) {
      if (absolute) continue; // `/..` is `/`
      throw new IcError('OUTSIDE_SCOPE', 'pattern climbs above the scope root with ".."');
    }
    if (literalName(previous) === undefined) {
      throw invalid('".." after a wildcard or brace segment is ambiguous; write the path without it');
    }
    out.pop();
  }
  return out;
}

// Makes an absolute pattern relative: its leading segments must spell the scope root literally.
function stripRoot(segments: Atom[][], root: string, input: string): Atom[][] {
  const rootSegments = root.split('/').filter((s) => s !== '');
  const outside = new IcError('OUTSIDE_SCOPE', `pattern "${input}" is outside the scope ${root || '/'}`, {
    scope: root,
  });
  if (segments.length < rootSegments.length) throw outside;
  rootSegments.forEach((name, i) => {
    if (literalName(segments[i]!) !== name) throw outside;
  });
  return segments.slice(rootSegments.length);
}

// Refuses brace readings that would smuggle in what the top level folds away: a leading `/`, or a `.`/`..` segment.
function checkBraceReadings(atoms: readonly Atom[]): void {
  if (!atoms.some((a) => a.kind === 'brace')) return;
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
