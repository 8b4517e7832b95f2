import { IcError } from './errors';

// The commit gate's item pattern (install --commit-gate=PATTERN) in a restricted syntax with a linear-time
// matcher. A JavaScript RegExp backtracks: `bd-(a+)+!` took over 100 s on a 35-character message. Here a
// pattern is a sequence of atoms, each optionally quantified, and matching simulates all positions of the
// pattern at once (a Thompson/Pike automaton), so the work per message character is bounded by the
// pattern's size, whatever the pattern. Syntax (docs/reference.md, "Commit gate"):
//   atoms       a literal character; `\` + any character (that character, literally); `.` (any character);
//               `\d` `\w` `\s`; a class `[abc]`, `[a-z0-9]`, `[^…]` (with `\` escapes inside)
//   quantifiers `?` `*` `+` `{n}` `{n,}` `{n,m}` (n, m ≤ 32)
//   refused     groups `( )`, alternation `|`, anchors `^` `$`, backreferences, lookaround, and a pattern
//               that matches the empty string.
// Matches are leftmost-longest (POSIX), found left to right without overlap.

type CharTest = (char: string) => boolean;
// One automaton position: consume one character (one), or optionally one (opt), or any number (star).
interface Step {
  test: CharTest;
  kind: 'one' | 'opt' | 'star';
}

export interface GatePattern {
  source: string;
  steps: readonly Step[];
}

const MAX_REPEAT = 32;
const MAX_STEPS = 256;
const MAX_SOURCE = 256;

const CLASS_ESCAPES: Record<string, CharTest> = { d: (c) => c >= '0' && c <= '9', w: (c) => /^[A-Za-z0-9_]$/.test(c), s: (c) => /^\s$/u.test(c) };

function refuse(source: string, problem: string): never {
  throw new IcError('INVALID_INPUT', `--commit-gate ${JSON.stringify(source)}: not a usable item pattern (${problem})`, {
    hint: 'Try: --commit-gate with a pattern such as bd-[0-9a-z]+ (literals, [classes], . \\d \\w \\s, and ? * + {n,m}; no groups or |)',
  });
}

// Parses the restricted syntax; throws INVALID_INPUT naming what is not allowed.
export function parseGatePattern(source: string): GatePattern {
  if (source === '') refuse(source, 'it is empty');
  if (source.length > MAX_SOURCE) refuse(source, `it is longer than ${MAX_SOURCE} characters`);
  const chars = Array.from(source);
  const atoms: { test: CharTest; min: number; max: number }[] = [];
  let i = 0;
  while (i < chars.length) {
    const c = chars[i]!;
    let test: CharTest;
    if (c === '\\') {
      const next = chars[i + 1] ?? refuse(source, 'it ends with a lone \\');
      if (/^[1-9]$/.test(next) || next === 'k') refuse(source, 'backreferences are not supported');
      test = CLASS_ESCAPES[next] ?? ((x) => x === next);
      i += 2;
    } else if (c === '[') {
      const parsed = parseClass(source, chars, i);
      test = parsed.test;
      i = parsed.end;
    } else if (c === '.') {
      test = (x) => x !== '\n';
      i++;
    } else if ('()|'.includes(c)) {
      refuse(source, 'groups and | are not supported');
    } else if ('^$'.includes(c)) {
      refuse(source, 'anchors ^ and $ are not supported');
    } else if ('?*+{'.includes(c)) {
      refuse(source, `${c} has nothing to repeat`);
    } else if (c === ']' || c === '}') {
      refuse(source, `unmatched ${c} (write \\${c} for the character)`);
    } else {
      test = (x) => x === c;
      i++;
    }
    const quantifier = parseQuantifier(source, chars, i);
    i = quantifier.end;
    atoms.push({ test: test!, min: quantifier.min, max: quantifier.max });
  }
  const steps: Step[] = [];
  for (const atom of atoms) {
    for (let n = 0; n < atom.min; n++) steps.push({ test: atom.test, kind: 'one' });
    if (atom.max === Infinity) steps.push({ test: atom.test, kind: 'star' });
    else for (let n = atom.min; n < atom.max; n++) steps.push({ test: atom.test, kind: 'opt' });
  }
  if (steps.length > MAX_STEPS) refuse(source, `it is too large (more than ${MAX_STEPS} steps once repeats are counted)`);
  if (steps.every((step) => step.kind !== 'one')) refuse(source, 'it matches the empty string');
  return { source, steps };
}

function parseClass(source: string, chars: string[], start: number): { test: CharTest; end: number } {
  let i = start + 1;
  const negated = chars[i] === '^' || chars[i] === '!';
  if (negated) i++;
  const tests: CharTest[] = [];
  let first = true;
  for (;;) {
    let c = chars[i];
    if (c === undefined) refuse(source, 'a [ class is not closed');
    if (c === ']' && !first) break;
    first = false;
    if (c === '\\') {
      const next = chars[i + 1] ?? refuse(source, 'it ends with a lone \\');
      const escape = CLASS_ESCAPES[next];
      i += 2;
      if (escape) {
        tests.push(escape);
        continue;
      }
      c = next;
    } else i++;
    if (chars[i] === '-' && chars[i + 1] !== undefined && chars[i + 1] !== ']') {
      let high = chars[i + 1]!;
      i += 2;
      if (high === '\\') {
        high = chars[i] ?? refuse(source, 'it ends with a lone \\');
        i++;
      }
      const low = c;
      if (low.codePointAt(0)! > high.codePointAt(0)!) refuse(source, `the range ${low}-${high} is out of order`);
      const [from, to] = [low.codePointAt(0)!, high.codePointAt(0)!];
      tests.push((x) => x.codePointAt(0)! >= from && x.codePointAt(0)! <= to);
    } else {
      const literal = c;
      tests.push((x) => x === literal);
    }
  }
  return { test: negated ? (x) => !tests.some((t) => t(x)) : (x) => tests.some((t) => t(x)), end: i + 1 };
}

function parseQuantifier(source: string, chars: string[], start: number): { min: number; max: number; end: number } {
  const c = chars[start];
  let result: { min: number; max: number; end: number };
  if (c === '?') result = { min: 0, max: 1, end: start + 1 };
  else if (c === '*') result = { min: 0, max: Infinity, end: start + 1 };
  else if (c === '+') result = { min: 1, max: Infinity, end: start + 1 };
  else if (c === '{') {
    const rest = chars.slice(start).join('');
    const match = /^\{(\d{1,2})(?:(,)(\d{1,2})?)?\}/.exec(rest);
    if (!match) refuse(source, 'a { repeat must be {n}, {n,} or {n,m}');
    const min = Number(match[1]);
    const max = match[2] === undefined ? min : match[3] === undefined ? Infinity : Number(match[3]);
    if (min > MAX_REPEAT || (max !== Infinity && max > MAX_REPEAT)) refuse(source, `repeat counts are at most ${MAX_REPEAT}`);
    if (max < min) refuse(source, `{${min},${max}} is out of order`);
    result = { min, max, end: start + Array.from(match[0]).length };
  } else return { min: 1, max: 1, end: start };
  const after = chars[result.end];
  if (after !== undefined && '?*+{'.includes(after)) refuse(source, 'a quantifier cannot be quantified again');
  return result;
}

// Every match, leftmost-longest, left to right. Work: each search step costs O(pattern steps); threads
// in one automaton position keep only their leftmost start, so at most steps+1 threads ever run.
export function findGateItems(pattern: GatePattern, text: string): string[] {
  const chars = Array.from(text);
  const steps = pattern.steps;
  const accept = steps.length;
  const found: string[] = [];
  let pos = 0;
  while (pos < chars.length) {
    const match = searchFrom(steps, accept, chars, pos);
    if (match === undefined) break;
    found.push(chars.slice(match.start, match.end).join(''));
    pos = match.end;
  }
  return found;
}

function searchFrom(steps: readonly Step[], accept: number, chars: string[], from: number): { start: number; end: number } | undefined {
  let starts = new Int32Array(accept + 1).fill(-1);
  let best: { start: number; end: number } | undefined;
  // Adds a thread at `state` (and the positions an optional step can skip to), keeping the leftmost start.
  const add = (into: Int32Array, state: number, start: number) => {
    for (let s = state; s <= accept; s++) {
      if (into[s] !== -1 && into[s]! <= start) return;
      into[s] = start;
      if (s === accept || steps[s]!.kind === 'one') return;
    }
  };
  for (let i = from; ; i++) {
    if (best === undefined) add(starts, 0, i);
    const acceptStart = starts[accept]!;
    if (acceptStart !== -1 && (best === undefined || acceptStart < best.start || (acceptStart === best.start && i > best.end))) best = { start: acceptStart, end: i };
    if (best !== undefined) for (let s = 0; s <= accept; s++) if (starts[s]! > best.start) starts[s] = -1;
    if (i >= chars.length || starts.every((start) => start === -1)) return best;
    const char = chars[i]!;
    const next = new Int32Array(accept + 1).fill(-1);
    for (let s = 0; s < accept; s++) {
      const start = starts[s]!;
      if (start === -1 || !steps[s]!.test(char)) continue;
      add(next, steps[s]!.kind === 'star' ? s : s + 1, start);
    }
    starts = next;
  }
}
