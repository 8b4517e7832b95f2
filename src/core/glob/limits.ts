import { IcError } from '../errors';

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

interface Frame {
  before: Shape;
  alternatives: Shape | undefined;
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
  const stack: Frame[] = [];
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

// Builds the TOO_COMPLEX error naming the limit, the measured value and the maximum.
function tooComplex(limit: LimitName, value: number): IcError {
  const max = LIMITS[limit];
  const shown = value >= CAP ? `more than ${CAP}` : String(value);
  return new IcError('TOO_COMPLEX', `pattern too complex: ${shown} ${DESCRIPTIONS[limit]} (limit ${limit} is ${max}); split it into simpler patterns`, { limit, value, max });
}
