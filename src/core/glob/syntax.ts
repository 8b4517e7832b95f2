import { IcError } from '../errors';

// Pattern syntax, the one place that reads pattern text: the complexity limits (measured before anything
// else), the parse into atoms, and the scans that need no parse (literal base, overlap prefilter, escapes).

// The complexity limits. Each keeps the worst accepted pair of patterns cheap to decide
// while letting real patterns through (`src/**/*.{ts,tsx}`, `packages/*/src/**`).
export const LIMITS = {
  length: 1024, // UTF-16 units of the raw input, before anything else
  segments: 64, // `/`-separated parts of the raw text
  segmentLength: 255, // characters and wildcards in one segment of any brace expansion (file names reach 255)
  wildcards: 32, // `*` runs, `?`, `[…]` classes
  globstars: 4, // runs of two or more `*`
  braceDepth: 4, // nesting of `{…}`
  expansions: 16, // alternatives after expanding every brace (each pair of alternatives is work)
  expandedSegments: 128, // segments summed over all expansions
  expandedLength: 2048, // characters and wildcards summed over all expansions (bounds the worst pair under 1 ms)
} as const;

export type LimitName = keyof typeof LIMITS;

const NONE = -Infinity;
const CAP = 1e15;

// What one brace-free stretch of pattern expands to, summarised so concatenation and union stay O(1):
// n expansions, t slashes and c items over all of them, and the longest whole (slash-free) / head / tail /
// inner segment.
interface Shape {
  n: number;
  t: number;
  c: number;
  whole: number;
  head: number;
  tail: number;
  inner: number;
}

const EMPTY: Shape = { n: 1, t: 0, c: 0, whole: 0, head: NONE, tail: NONE, inner: NONE };
const ITEM: Shape = { n: 1, t: 0, c: 1, whole: 1, head: NONE, tail: NONE, inner: NONE };
const SLASH: Shape = { n: 1, t: 1, c: 0, whole: NONE, head: 0, tail: 0, inner: NONE };

// Sequencing two stretches: every expansion of x followed by every expansion of y.
function concat(x: Shape, y: Shape): Shape {
  return {
    n: Math.min(CAP, x.n * y.n),
    t: Math.min(CAP, x.t * y.n + y.t * x.n),
    c: Math.min(CAP, x.c * y.n + y.c * x.n),
    whole: x.whole + y.whole,
    head: Math.max(x.head, x.whole + y.head),
    tail: Math.max(y.tail, x.tail + y.whole),
    inner: Math.max(x.inner, y.inner, x.tail + y.head),
  };
}

// Alternatives of one brace group: the expansions of each, side by side.
function union(x: Shape | undefined, y: Shape): Shape {
  if (x === undefined) return y;
  return {
    n: Math.min(CAP, x.n + y.n),
    t: Math.min(CAP, x.t + y.t),
    c: Math.min(CAP, x.c + y.c),
    whole: Math.max(x.whole, y.whole),
    head: Math.max(x.head, y.head),
    tail: Math.max(x.tail, y.tail),
    inner: Math.max(x.inner, y.inner),
  };
}

// Finds the `]` closing a class opened at `start`, or -1; mirrors the parser closely enough to bound work.
function findClassEnd(pattern: string, start: number): number {
  let i = start + 1;
  if (pattern[i] === '!' || pattern[i] === '^') i++;
  for (; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') i++;
    else if (c === ']') return i;
  }
  return -1;
}

// Measures every limit in one linear pass that never throws on malformed syntax (the parser judges that later).
export function measureComplexity(pattern: string): Record<LimitName, number> {
  let seq = EMPTY;
  const stack: { before: Shape; alternatives: Shape | undefined }[] = [];
  let segments = 1;
  let wildcards = 0;
  let globstars = 0;
  let braceDepth = 0;
  let classesPossible = true;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      i++;
      seq = concat(seq, ITEM);
    } else if (c === '/') {
      segments++;
      seq = concat(seq, SLASH);
    } else if (c === '*') {
      let run = 1;
      while (pattern[i + 1] === '*') {
        i++;
        run++;
      }
      wildcards++;
      if (run >= 2) globstars++;
      seq = concat(seq, ITEM);
    } else if (c === '?') {
      wildcards++;
      seq = concat(seq, ITEM);
    } else if (c === '[' && classesPossible) {
      const end = findClassEnd(pattern, i);
      if (end < 0) classesPossible = false;
      else {
        wildcards++;
        i = end;
      }
      seq = concat(seq, ITEM);
    } else if (c === '{') {
      stack.push({ before: seq, alternatives: undefined });
      braceDepth = Math.max(braceDepth, stack.length);
      seq = EMPTY;
    } else if (c === ',' && stack.length > 0) {
      const frame = stack[stack.length - 1]!;
      frame.alternatives = union(frame.alternatives, seq);
      seq = EMPTY;
    } else if (c === '}' && stack.length > 0) {
      const frame = stack.pop()!;
      seq = concat(frame.before, union(frame.alternatives, seq));
    } else {
      seq = concat(seq, ITEM);
    }
  }
  // An unclosed brace is a syntax error later; fold what is open so the measures stay upper bounds.
  while (stack.length > 0) {
    const frame = stack.pop()!;
    seq = concat(frame.before, union(frame.alternatives, seq));
  }
  const segmentLength = Math.max(0, seq.whole, seq.head, seq.tail, seq.inner);
  return {
    length: pattern.length,
    segments,
    segmentLength,
    wildcards,
    globstars,
    braceDepth,
    expansions: seq.n,
    expandedSegments: Math.min(CAP, seq.t + seq.n),
    expandedLength: seq.c,
  };
}

const DESCRIPTIONS: Record<LimitName, string> = {
  length: 'characters',
  segments: 'path segments',
  segmentLength: 'characters in one path segment',
  wildcards: 'wildcards (*, ?, [...])',
  globstars: '** globstars',
  braceDepth: 'levels of nested braces',
  expansions: 'brace expansions',
  expandedSegments: 'path segments across all brace expansions',
  expandedLength: 'characters across all brace expansions',
};

// Refuses a pattern past any limit with TOO_COMPLEX before any other work, length first so a 1 MB input costs nothing.
export function validateComplexity(pattern: string): void {
  if (pattern.length > LIMITS.length) throw tooComplex('length', pattern.length);
  const measures = measureComplexity(pattern);
  for (const limit of Object.keys(LIMITS) as LimitName[]) {
    if (measures[limit] > LIMITS[limit]) throw tooComplex(limit, measures[limit]);
  }
}

function tooComplex(limit: LimitName, value: number): IcError {
  const max = LIMITS[limit];
  const shown = value >= CAP ? `more than ${CAP}` : String(value);
  return new IcError('TOO_COMPLEX', `pattern too complex: ${shown} ${DESCRIPTIONS[limit]} (limit ${limit} is ${max}); split it into simpler patterns`, { limit, value, max });
}

// Unicode NFC, without touching ICU for ASCII text (always NFC already): the first String#normalize of a
// process loads the normalization data, ~4 ms of a hook that only ever sees ASCII paths.
export function toNFC(text: string): string {
  return /^[\x00-\x7f]*$/.test(text) ? text : text.normalize('NFC');
}

// The pattern syntax tree: braces keep their alternatives; slashes stay atoms because braces may hold them.
export type Atom =
  | { kind: 'char'; cp: number }
  | { kind: 'any' }
  | { kind: 'star' }
  | { kind: 'class'; negated: boolean; ranges: Array<[number, number]> }
  | { kind: 'slash' }
  | { kind: 'brace'; alternatives: Atom[][] };

const ESCAPED_SLASH = 'an escaped "/" cannot name a character: "/" always separates path segments';
const BRACE_RANGE = /^(?:[+-]?\d+\.\.[+-]?\d+|[a-zA-Z]\.\.[a-zA-Z])(?:\.\.[+-]?\d+)?$/;

// Refuses characters no pattern may hold: controls (NUL included) and unpaired UTF-16 surrogates.
export function checkCharacters(pattern: string): void {
  for (let i = 0; i < pattern.length; i++) {
    const u = pattern.charCodeAt(i);
    if (u < 0x20 || u === 0x7f) {
      throw invalid(`pattern contains the control character U+${hex(u)}`);
    }
    const paired = u >= 0xd800 && u <= 0xdbff && pattern.charCodeAt(i + 1) >= 0xdc00 && pattern.charCodeAt(i + 1) <= 0xdfff;
    if (paired) i++;
    else if (u >= 0xd800 && u <= 0xdfff) throw invalid(`pattern is not valid Unicode (unpaired surrogate U+${hex(u)})`);
  }
}

interface ParseFrame {
  alternatives: Atom[][];
  current: Atom[];
  start: number;
}

// Turns pattern text into atoms, refusing every unsupported or malformed construct with INVALID_PATTERN.
export function parsePattern(pattern: string): Atom[] {
  checkCharacters(pattern);
  if (pattern.length === 0) throw invalid('pattern is empty');
  if (pattern.startsWith('!')) {
    throw invalid('negated patterns (a leading "!") are not supported; reserve the paths you mean, or write "\\!" for a literal "!"');
  }
  const cps = Array.from(pattern, (ch) => ch.codePointAt(0)!);
  const root: ParseFrame = { alternatives: [], current: [], start: -1 };
  const stack: ParseFrame[] = [root];
  let i = 0;
  while (i < cps.length) {
    const frame = stack[stack.length - 1]!;
    const c = cps[i]!;
    const ch = String.fromCodePoint(c);
    if (c === 0x5c) {
      const next = cps[i + 1];
      if (next === undefined) throw invalid('pattern ends with a lone "\\"; write "\\\\" for a literal backslash');
      if (next === 0x2f) throw invalid(ESCAPED_SLASH);
      frame.current.push({ kind: 'char', cp: next });
      i += 2;
      continue;
    }
    if ('+@!*?'.includes(ch) && cps[i + 1] === 0x28) {
      throw invalid(`extglob "${ch}(…)" is not supported; use braces for alternatives ("{a,b}") or escape the parenthesis ("\\(") for a literal one`);
    }
    if (ch === '*') frame.current.push({ kind: 'star' });
    else if (ch === '?') frame.current.push({ kind: 'any' });
    else if (ch === '/') frame.current.push({ kind: 'slash' });
    else if (ch === '[') {
      const [atom, end] = parseClass(cps, i);
      frame.current.push(atom);
      i = end + 1;
      continue;
    } else if (ch === '{') stack.push({ alternatives: [], current: [], start: i });
    else if (ch === ',' && stack.length > 1) {
      frame.alternatives.push(frame.current);
      frame.current = [];
    } else if (ch === '}') {
      if (stack.length === 1) throw invalid('unmatched "}"; write "\\}" for a literal brace');
      stack.pop();
      frame.alternatives.push(frame.current);
      if (frame.alternatives.length === 1) checkBraceRange(cps.slice(frame.start + 1, i));
      stack[stack.length - 1]!.current.push({ kind: 'brace', alternatives: frame.alternatives });
    } else frame.current.push({ kind: 'char', cp: c });
    i++;
  }
  if (stack.length > 1) throw invalid('unclosed "{"; write "\\{" for a literal brace');
  return root.current;
}

// Refuses bash/micromatch sequence braces (`{1..3}`) instead of silently reading them as a literal.
function checkBraceRange(body: number[]): void {
  const text = String.fromCodePoint(...body);
  if (BRACE_RANGE.test(text)) {
    throw invalid(`brace ranges like "{${text}}" are not supported; list the alternatives, e.g. "{1,2,3}"`);
  }
}

// Parses `[…]` starting at `start`; returns the class atom and the index of its closing `]`.
function parseClass(cps: number[], start: number): [Atom, number] {
  let i = start + 1;
  let negated = false;
  if (cps[i] === 0x21 || cps[i] === 0x5e) {
    negated = true;
    i++;
  }
  const ranges: Array<[number, number]> = [];
  const readChar = (): number | undefined => {
    const c = cps[i];
    if (c === undefined) return undefined;
    if (c === 0x5c) {
      const next = cps[i + 1];
      if (next === undefined) return undefined;
      if (next === 0x2f) throw invalid(ESCAPED_SLASH);
      i += 2;
      return next;
    }
    if (c === 0x2f) throw invalid('a class "[…]" cannot contain "/"; a class matches one character of a segment');
    if (c === 0x5b && (cps[i + 1] === 0x3a || cps[i + 1] === 0x3d || cps[i + 1] === 0x2e)) {
      throw invalid('POSIX classes like "[[:alpha:]]" are not supported; use ranges such as "[a-zA-Z]"');
    }
    i++;
    return c;
  };
  for (;;) {
    if (cps[i] === undefined) throw invalid('unclosed "["; write "\\[" for a literal bracket');
    if (cps[i] === 0x5d) break;
    const lo = readChar();
    if (lo === undefined) throw invalid('unclosed "["; write "\\[" for a literal bracket');
    if (cps[i] === 0x2d && cps[i + 1] !== undefined && cps[i + 1] !== 0x5d) {
      i++;
      const hi = readChar();
      if (hi === undefined) throw invalid('unclosed "["; write "\\[" for a literal bracket');
      if (hi < lo) {
        throw invalid(`reversed range "${String.fromCodePoint(lo)}-${String.fromCodePoint(hi)}" in a class`);
      }
      ranges.push([lo, hi]);
    } else ranges.push([lo, lo]);
  }
  if (ranges.length === 0) throw invalid('empty class "[]"; write "\\]" for a literal bracket inside a class');
  return [{ kind: 'class', negated, ranges }, i];
}

function hex(u: number): string {
  return u.toString(16).toUpperCase().padStart(4, '0');
}

export function invalid(message: string): IcError {
  return new IcError('INVALID_PATTERN', message);
}

// Cuts atoms at their top-level slashes (slashes inside braces stay put), keeping empty pieces: the one
// place a parsed pattern is split into segments (normalize.ts, and the readings of expand.ts).
export function splitAtSlashes<A extends Atom>(atoms: readonly A[]): A[][] {
  const pieces: A[][] = [[]];
  for (const atom of atoms) {
    if (atom.kind === 'slash') pieces.push([]);
    else pieces[pieces.length - 1]!.push(atom);
  }
  return pieces;
}

const SPECIAL = new Set(['*', '?', '[', '{']);

// Splits pattern text into its leading literal segments (unescaped), stopping at the first segment holding
// a wildcard, class or brace; `complete` tells whether the whole pattern was literal.
function scanLiteralSegments(pattern: string): { segments: string[]; complete: boolean } {
  const segments: string[] = [];
  let current = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === '\\') {
      current += pattern[i + 1] ?? '';
      i++;
    } else if (ch === '/') {
      if (current !== '') segments.push(current);
      current = '';
    } else if (SPECIAL.has(ch)) {
      return { segments, complete: false };
    } else current += ch;
  }
  if (current !== '') segments.push(current);
  return { segments, complete: true };
}

// The leading literal segments as a path (`src/**/*.ts` → `src`); '' when the first segment is a glob.
// Two patterns whose bases diverge (neither is a segment prefix of the other) cannot overlap.
export function literalBase(pattern: string): string {
  return scanLiteralSegments(pattern).segments.join('/');
}

// True when the pattern names exactly one path (no wildcard, class or brace once escapes are read).
// Most patterns have no special character or escape at all: one regex test answers for them.
export function isLiteral(pattern: string): boolean {
  if (!/[*?[{\\]/.test(pattern)) return true;
  return scanLiteralSegments(pattern).complete;
}

// True when a literal pattern names a path (`literalBase` is that path): not empty, no `.` or `..` segment,
// which no path has. Such a pattern overlaps exactly the patterns naming the same path.
export function namesOnePath(pattern: string): boolean {
  if (!isLiteral(pattern)) return false;
  const path = literalBase(pattern);
  return path !== '' && !/(^|\/)\.\.?(\/|$)/.test(path);
}

// The path a literal pattern names: escapes removed.
export function unescapeLiteral(pattern: string): string {
  return pattern.replace(/\\(.)/gsu, '$1');
}

// Turns a concrete path into a pattern matching exactly it (`app/[id]` → `app/\[id\]`).
export function escapeLiteralPath(path: string): string {
  let out = path.replace(/[\\*?[\]{}]/g, '\\$&').replace(/([+@!])\(/g, '$1\\(');
  if (out.startsWith('!')) out = `\\${out}`;
  return out;
}

// The prefilter: true when the literal bases differ at some segment both have, so no path matches both.
export function basesDiverge(a: string, b: string): boolean {
  const x = scanLiteralSegments(a).segments;
  const y = scanLiteralSegments(b).segments;
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) if (x[i] !== y[i]) return true;
  return false;
}
