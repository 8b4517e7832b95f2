// Hostile patterns: each is refused with the right code, quickly (the time bound is a sanity check only, wide
// enough for a loaded 2-core machine, where a time slice can take tens of ms).
import { describe, expect, test } from 'vitest';
import { LIMITS, normalizePattern, overlaps, validateComplexity } from '../../../src/core/glob';
import { IcError } from '../../../src/core/errors';

const OPTIONS = { root: '/tmp/x/repo' };
const r = (s: string, n: number): string => s.repeat(n);

const CASES: Array<[string, string, string, string?]> = [
  ['1 MB of letters', r('a', 1 << 20), 'TOO_COMPLEX', 'length'],
  ['1 MB of stars', r('*', 1 << 20), 'TOO_COMPLEX', 'length'],
  ['1 MB of open braces', r('{', 1 << 20), 'TOO_COMPLEX', 'length'],
  ['1 MB of open brackets', r('[', 1 << 20), 'TOO_COMPLEX', 'length'],
  ['deep brace nesting', `${r('{a,', 200)}b${r('}', 200)}`, 'TOO_COMPLEX', 'braceDepth'],
  ['just past the nesting limit', `${r('{a,', LIMITS.braceDepth + 1)}b${r('}', LIMITS.braceDepth + 1)}`, 'TOO_COMPLEX', 'braceDepth'],
  ['many globstars', r('**/', 200) + 'a', 'TOO_COMPLEX', 'segments'],
  ['many globstars in few segments', r('**/', 30) + 'a', 'TOO_COMPLEX', 'globstars'],
  ['five globstars', r('**/x/', 5) + 'a', 'TOO_COMPLEX', 'globstars'],
  ['brace bomb', r('{a,b}', 100), 'TOO_COMPLEX', 'expansions'],
  ['brace bomb just past the limit', r('{a,b}', 5), 'TOO_COMPLEX', 'expansions'],
  ['wide brace', `{${Array.from({ length: 100 }, (_, i) => `f${i}`).join(',')}}`, 'TOO_COMPLEX', 'expansions'],
  ['many stars', r('*a', 40), 'TOO_COMPLEX', 'wildcards'],
  ['many stars, long', r('*a', 300), 'TOO_COMPLEX', 'segmentLength'],
  ['many question marks', r('?', 33), 'TOO_COMPLEX', 'wildcards'],
  ['many classes', r('[ab]', 33), 'TOO_COMPLEX', 'wildcards'],
  ['many segments', r('a/', 80) + 'a', 'TOO_COMPLEX', 'segments'],
  ['long segment', r('a', 300), 'TOO_COMPLEX', 'segmentLength'],
  ['long segment assembled by braces', `{${r('a', 140)},x/}${r('b', 140)}`, 'TOO_COMPLEX', 'segmentLength'],
  ['braces times segments', `{a,b}{a,b}{a,b}{a,b}/${r('x/', 40)}y`, 'TOO_COMPLEX', 'expandedSegments'],
  ['NUL', 'src/\u0000.ts', 'INVALID_PATTERN'],
  ['newline', 'src/a\n.ts', 'INVALID_PATTERN'],
  ['escape character', 'src/\u001b[31m', 'INVALID_PATTERN'],
  ['DEL', 'src/\u007f', 'INVALID_PATTERN'],
  ['lone high surrogate', 'src/\ud800.ts', 'INVALID_PATTERN'],
  ['lone low surrogate', 'src/\udc00.ts', 'INVALID_PATTERN'],
  ['extglob +()', 'src/+(a|b).ts', 'INVALID_PATTERN'],
  ['extglob @()', 'src/@(a|b).ts', 'INVALID_PATTERN'],
  ['extglob !()', 'src/!(a).ts', 'INVALID_PATTERN'],
  ['extglob *()', 'src/*(a).ts', 'INVALID_PATTERN'],
  ['extglob ?()', 'src/?(a).ts', 'INVALID_PATTERN'],
  ['negation', '!src/**', 'INVALID_PATTERN'],
  ['unclosed class', 'src/[abc', 'INVALID_PATTERN'],
  ['unclosed brace', 'src/{a,b', 'INVALID_PATTERN'],
  ['stray closing brace', 'src/a}', 'INVALID_PATTERN'],
  ['trailing backslash', 'src/a\\', 'INVALID_PATTERN'],
  ['POSIX class', 'src/[[:alpha:]]', 'INVALID_PATTERN'],
  ['empty class', 'src/[]', 'INVALID_PATTERN'],
  ['reversed range', 'src/[z-a]', 'INVALID_PATTERN'],
  ['slash in class', 'src/[a/b]', 'INVALID_PATTERN'],
  ['escaped slash', 'src\\/a', 'INVALID_PATTERN'],
  ['brace range', 'file{1..3}.ts', 'INVALID_PATTERN'],
  ['empty', '', 'INVALID_PATTERN'],
  ['matches nothing', 'src/[.]', 'INVALID_PATTERN'],
  ['dot dot in braces', '{..,a}/x', 'INVALID_PATTERN'],
  ['absolute in braces', '{/etc,a}/x', 'INVALID_PATTERN'],
  ['escapes the root', '../secret', 'OUTSIDE_SCOPE'],
  ['escapes the root later', 'a/../../secret', 'OUTSIDE_SCOPE'],
  ['absolute outside', '/etc/passwd', 'OUTSIDE_SCOPE'],
  ['absolute sibling with shared prefix', '/tmp/x/repository/a', 'OUTSIDE_SCOPE'],
];

describe('hostile patterns are refused quickly', () => {
  test.each(CASES)('%s', (_name, pattern, code, limit) => {
    const t0 = performance.now();
    let error: unknown;
    try {
      normalizePattern(pattern, OPTIONS);
    } catch (e) {
      error = e;
    }
    const ms = performance.now() - t0;
    expect(error).toBeInstanceOf(IcError);
    expect((error as IcError).code).toBe(code);
    if (limit !== undefined) {
      expect((error as IcError).details).toMatchObject({ limit, max: LIMITS[limit as keyof typeof LIMITS] });
      expect((error as IcError).message).toContain(limit);
    }
    expect(ms).toBeLessThan(1_000); // linear work takes a few ms; a backtracking or expanding refusal would take minutes
  });

  test('validateComplexity refuses before reading past the length limit', () => {
    const huge = r('{', 50 << 20);
    const t0 = performance.now();
    expect(() => validateComplexity(huge)).toThrow(IcError);
    expect(performance.now() - t0).toBeLessThan(1_000); // reading 50 MB would take far longer on a loaded machine too
  });

  test('overlaps() refuses raw hostile input too (it compiles with the same limits)', () => {
    expect(() => overlaps(r('{a,b}', 30), '**')).toThrowError(/brace expansions/);
    expect(() => overlaps('a\u0000', '**')).toThrowError(/control character/);
  });

  test('real patterns pass the limits', () => {
    for (const p of [
      'src/**/*.{ts,tsx}',
      'packages/*/src/**',
      '**/*.{js,jsx,ts,tsx,json,md}',
      'packages/{a,b,c,d}/src/**/*.{ts,tsx,js,jsx}',
      'apps/web/app/\\[locale\\]/(marketing)/**/page.tsx',
      `${r('deep/', 40)}file.ts`,
      `src/${r('a', 128)}`,
    ]) {
      expect(() => normalizePattern(p, OPTIONS)).not.toThrow();
    }
  });
});
