// A brute-force oracle for glob tests, written from scratch so it shares no code with src/core/glob:
// textual brace expansion, a backtracking segment matcher, and enumeration of every small valid path.
import fc from 'fast-check';

// Index of the `]` closing a class opened at `i`, following the same class syntax as the contract.
function classEnd(p: string[], i: number): number {
  let j = i + 1;
  if (p[j] === '!' || p[j] === '^') j++;
  for (; j < p.length; j++) {
    if (p[j] === '\\') j++;
    else if (p[j] === ']') return j;
  }
  throw new Error(`oracle: unclosed class in ${p.join('')}`);
}

// Expands the first top-level brace group textually, recursively, until none is left.
export function expandText(pattern: string): string[] {
  const p = Array.from(pattern);
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '\\') i++;
    else if (p[i] === '[') i = classEnd(p, i);
    else if (p[i] === '{') {
      let depth = 0;
      const commas: number[] = [];
      let j = i;
      for (; j < p.length; j++) {
        if (p[j] === '\\') j++;
        else if (p[j] === '[') j = classEnd(p, j);
        else if (p[j] === '{') depth++;
        else if (p[j] === '}' && --depth === 0) break;
        else if (p[j] === ',' && depth === 1) commas.push(j);
      }
      const cuts = [i, ...commas, j];
      const prefix = p.slice(0, i).join('');
      const suffix = p.slice(j + 1).join('');
      const out: string[] = [];
      for (let k = 0; k + 1 < cuts.length; k++) {
        const alt = p.slice(cuts[k]! + 1, cuts[k + 1]).join('');
        out.push(...expandText(prefix + alt + suffix));
      }
      return out;
    }
  }
  return [pattern];
}

// Splits a brace-free pattern at unescaped slashes outside classes, dropping empty segments.
function splitSegments(pattern: string): string[] {
  const p = Array.from(pattern);
  const out: string[] = [];
  let cur = '';
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '\\') {
      cur += p[i]! + (p[i + 1] ?? '');
      i++;
    } else if (p[i] === '[') {
      const e = classEnd(p, i);
      cur += p.slice(i, e + 1).join('');
      i = e;
    } else if (p[i] === '/') {
      if (cur !== '') out.push(cur);
      cur = '';
    } else cur += p[i]!;
  }
  if (cur !== '') out.push(cur);
  return out;
}

// Does a class body (between `[` and `]`, negation included) admit character c? Under ignoreCase the body
// admits c when it holds c, its lower case or its upper case; negation applies after (git's wildmatch).
function classMatches(body: string[], c: string, ignoreCase: boolean): boolean {
  let i = 0;
  let negated = false;
  if (body[0] === '!' || body[0] === '^') {
    negated = true;
    i = 1;
  }
  const variants = ignoreCase ? [c, c.toLowerCase(), c.toUpperCase()] : [c];
  let hit = false;
  while (i < body.length) {
    let lo = body[i]!;
    if (lo === '\\') lo = body[++i]!;
    i++;
    let hi = lo;
    if (body[i] === '-' && i + 1 < body.length) {
      i++;
      hi = body[i]!;
      if (hi === '\\') hi = body[++i]!;
      i++;
    }
    for (const v of variants) {
      if (Array.from(v).length !== 1) continue;
      const cp = v.codePointAt(0)!;
      if (cp >= lo.codePointAt(0)! && cp <= hi.codePointAt(0)!) hit = true;
    }
  }
  return negated ? !hit : hit;
}

// Backtracking match of one segment pattern against one name (exponential in stars; fine for tiny inputs).
function segmentMatches(p: string[], pi: number, s: string[], si: number, ignoreCase: boolean): boolean {
  if (pi === p.length) return si === s.length;
  const t = p[pi]!;
  if (t === '*') {
    for (let k = si; k <= s.length; k++) if (segmentMatches(p, pi + 1, s, k, ignoreCase)) return true;
    return false;
  }
  if (si === s.length) return false;
  if (t === '?') return segmentMatches(p, pi + 1, s, si + 1, ignoreCase);
  if (t === '[') {
    const e = classEnd(p, pi);
    return classMatches(p.slice(pi + 1, e), s[si]!, ignoreCase) && segmentMatches(p, e + 1, s, si + 1, ignoreCase);
  }
  const lit = t === '\\' ? p[pi + 1]! : t;
  const next = t === '\\' ? pi + 2 : pi + 1;
  const same = ignoreCase ? lit.toLowerCase() === s[si]!.toLowerCase() : lit === s[si];
  return same && segmentMatches(p, next, s, si + 1, ignoreCase);
}

// Matches segment lists: `**` consumes zero or more whole names.
function segmentsMatch(ps: string[], pi: number, names: string[], ni: number, ignoreCase: boolean): boolean {
  if (pi === ps.length) return ni === names.length;
  if (ps[pi] === '**') {
    for (let k = ni; k <= names.length; k++) if (segmentsMatch(ps, pi + 1, names, k, ignoreCase)) return true;
    return false;
  }
  if (ni === names.length) return false;
  return segmentMatches(Array.from(ps[pi]!), 0, Array.from(names[ni]!), 0, ignoreCase) && segmentsMatch(ps, pi + 1, names, ni + 1, ignoreCase);
}

export interface OracleOptions {
  // core.ignorecase: a literal matches either case of itself; a class, either case of a character it holds.
  ignoreCase?: boolean;
}

// The oracle's matcher, expanded once: a valid path matches when some textual brace expansion matches it.
export function naiveMatcher(pattern: string, options: OracleOptions = {}): (path: string) => boolean {
  const alternatives = expandText(pattern).map(splitSegments);
  const ignoreCase = options.ignoreCase === true;
  return (path) => {
    const names = path.split('/');
    return alternatives.some((segments) => segmentsMatch(segments, 0, names, 0, ignoreCase));
  };
}

// One-off form of naiveMatcher.
export function naiveMatch(pattern: string, path: string, options: OracleOptions = {}): boolean {
  return naiveMatcher(pattern, options)(path);
}

// True for a normalized relative path: non-empty names, none `.` or `..`.
export function isValidPath(path: string): boolean {
  return path.split('/').every((n) => n !== '' && n !== '.' && n !== '..');
}

// Every valid path up to maxLength characters over the alphabet (which must include `/` to get directories).
export function enumeratePaths(alphabet: readonly string[], maxLength: number): string[] {
  const out: string[] = [];
  let layer = [''];
  for (let len = 1; len <= maxLength; len++) {
    const next: string[] = [];
    for (const prefix of layer) for (const ch of alphabet) next.push(prefix + ch);
    for (const s of next) if (isValidPath(s)) out.push(s);
    layer = next;
  }
  return out;
}

// The characters random patterns are built from; `*` is deliberately absent so it can stand for "any other
// character" in enumerated paths (and `\*` still names it).
const charAtom = fc.constantFrom('a', 'b', '.', 'a', 'b', '\\a', '\\.', '\\*');
const classAtom = fc.constantFrom('[ab]', '[!a]', '[^a]', '[a-b]', '[!.]', '[.a]', '[^ab.]', '[\\*]', '[-a]', '[.-a]');
const wildAtom = fc.constantFrom('*', '?', '*', '?');

// A random segment-level chunk: chars, wildcards, classes, `**` alone, braces (nested, holding `/`).
export const patternArb: fc.Arbitrary<string> = fc.letrec<{ seq: string; brace: string; atom: string }>((tie) => ({
  atom: fc.oneof(
    { maxDepth: 3, depthIdentifier: 'brace' },
    { weight: 5, arbitrary: charAtom },
    { weight: 3, arbitrary: wildAtom },
    { weight: 2, arbitrary: classAtom },
    { weight: 2, arbitrary: fc.constant('/') },
    { weight: 1, arbitrary: fc.constant('/**/') },
    { weight: 1, arbitrary: tie('brace') },
  ),
  seq: fc.array(tie('atom'), { minLength: 1, maxLength: 5 }).map((xs) => xs.join('')),
  brace: fc
    .array(fc.oneof({ weight: 3, arbitrary: tie('seq') }, { weight: 1, arbitrary: fc.constant('') }), {
      minLength: 2,
      maxLength: 3,
      depthIdentifier: 'brace',
    })
    .map((alts) => `{${alts.join(',')}}`),
})).seq;

// Case-insensitive material: upper-case letters, punctuation between `Z` and `a`, and classes whose ranges
// cross the letters (`[A-z]`, `[0-Z]`, `[Z-a]`; `[a-C]` is reversed and must be refused).
const caseAtom = fc.constantFrom('[A-z]', '[0-Z]', '[Z-a]', '[!A-Z]', '[A-B]', '[^B]', '[_-a]', '[!_]', '[a-C]', 'A', 'B', '_', '\\[', '[\\[-b]');

// Random patterns for core.ignorecase: patternArb and caseAtom pieces, with some letters upper-cased.
export const casePatternArb: fc.Arbitrary<string> = fc
  .tuple(fc.array(fc.oneof(patternArb, caseAtom), { minLength: 1, maxLength: 3 }), fc.integer({ min: 0, max: 2 ** 30 }))
  .map(([pieces, bits]) => Array.from(pieces.join(''), (ch, i) => ((bits >> (i % 30)) & 1 ? ch.toUpperCase() : ch)).join(''));
