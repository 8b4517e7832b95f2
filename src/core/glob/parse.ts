import { IcError } from '../errors';

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
    if (u >= 0xd800 && u <= 0xdbff) {
      const next = pattern.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
      else throw invalid(`pattern is not valid Unicode (unpaired surrogate U+${hex(u)})`);
    } else if (u >= 0xdc00 && u <= 0xdfff) {
      throw invalid(`pattern is not valid Unicode (unpaired surrogate U+${hex(u)})`);
    }
  }
}

interface Frame {
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
  const root: Frame = { alternatives: [], current: [], start: -1 };
  const stack: Frame[] = [root];
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

// Formats a UTF-16 unit for messages.
function hex(u: number): string {
  return u.toString(16).toUpperCase().padStart(4, '0');
}

// The one way this module reports bad syntax.
export function invalid(message: string): IcError {
  return new IcError('INVALID_PATTERN', message);
}
