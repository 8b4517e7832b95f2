// Case folding under core.ignorecase folds what a class matches, not its text (issue #11: `[A-z]` had become
// `[a-z]`, `[0-Z]` `[0-z]`, `[Z-a]` was refused and `[a-C]` accepted).
import { describe, expect, test } from 'vitest';
import { matchPath, normalizePattern, overlaps } from '../../../src/core/glob';
import { CASED_BLOCKS, lowerCaseTable } from '../../../src/core/glob/case-fold';
import { IcError } from '../../../src/core/errors';
import { naiveMatch, naiveMatcher } from './oracle';

const OPTIONS = { root: '/r', ignoreCase: true };
const fold = (p: string): string => normalizePattern(p, OPTIONS);
const PUNCTUATION = ['_', '^', '`', '[', ']', '\\'];

describe('the lower-case table', () => {
  test('every code point that lower-casing changes lies in CASED_BLOCKS (on this Node)', () => {
    const inBlocks = (cp: number): boolean => CASED_BLOCKS.some(([lo, hi]) => cp >= lo && cp <= hi);
    let changing = 0;
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const ch = String.fromCodePoint(cp);
      if (ch.toLowerCase() === ch) continue;
      changing++;
      if (!inBlocks(cp)) throw new Error(`U+${cp.toString(16)} changes when lower-cased but lies outside CASED_BLOCKS`);
    }
    expect(lowerCaseTable().length).toBe(changing);
    for (const [cp, lower] of lowerCaseTable()) {
      const ch = String.fromCodePoint(cp);
      expect(ch.toLowerCase(), `U+${cp.toString(16)}`).not.toBe(ch);
      if (lower !== undefined) expect(String.fromCodePoint(lower).toLowerCase()).toBe(String.fromCodePoint(lower));
    }
    expect(lowerCaseTable()).toContainEqual([0x41, 0x61]);
    expect(lowerCaseTable()).toContainEqual([0x130, undefined]); // İ lower-cases to two code points
  });
});

describe('classes under core.ignorecase', () => {
  test.each([
    ['[A-z]', '[\\[-z]'],
    ['[0-Z]', '[0-@a-z]'],
    ['[Z-a]', '[\\[-az]'],
    ['[A-Z]', '[a-z]'],
    ['[a-z]', '[a-z]'],
    ['[!A]', '[!Aa]'],
    ['[!a]', '[!Aa]'],
    ['[^A-C]x', '[!A-Ca-c]x'],
    ['[0-9_]', '[0-9_]'],
    ['{[A-B],Q}', '{[a-b],q}'],
  ])('%s folds to %s, a fixed point', (input, expected) => {
    expect(fold(input)).toBe(expected);
    expect(fold(expected)).toBe(expected);
  });

  test('[A-z] keeps the punctuation between Z and a; [0-Z] gains none of it', () => {
    for (const ch of PUNCTUATION) {
      expect(matchPath(fold('[A-z]'), ch), ch).toBe(true);
      expect(overlaps(fold('[0-Z]'), fold(ch === '\\' ? '\\\\' : `\\${ch}`)).overlap, ch).toBe(false);
    }
    expect(matchPath(fold('[0-Z]'), 'q')).toBe(true); // Q is in the class, so q is too
  });

  test('[a-C] is a reversed range, as it is case-sensitively', () => {
    expect(() => fold('[a-C]')).toThrow(IcError);
    expect(() => fold('[a-C]')).toThrow(/reversed/);
  });

  test('a negated class excludes both cases of its members', () => {
    expect(matchPath(fold('[!A]'), 'a')).toBe(false);
    expect(matchPath(fold('[!a]'), 'b')).toBe(true);
    expect(overlaps(fold('[!A]x'), fold('ax')).overlap).toBe(false);
  });

  test('a class only a multi-character lower case could match is refused', () => {
    expect(() => fold('[\u0130]')).toThrow(/no character once case is folded/);
  });

  test('literals fold as text; the oracle agrees on a folded path', () => {
    expect(fold('SRC/App.TS')).toBe('src/app.ts');
    for (const [pattern, path] of [
      ['[A-z]*.MD', '_x.md'],
      ['[Z-a]', 'z'],
      ['[Z-a]', '`'],
    ] as const) {
      expect(matchPath(fold(pattern), path), `${pattern} ${path}`).toBe(naiveMatcher(pattern, { ignoreCase: true })(path.toUpperCase()));
    }
  });
});

describe('the oracle under ignoreCase (it decides the property test)', () => {
  test.each([
    ['A', 'a', true, false],
    ['a', 'A', true, false],
    ['[A-z]', '_', true, true],
    ['[0-Z]', '_', false, false],
    ['[0-Z]', 'q', true, false],
    ['[Z-a]', 'z', true, false],
    ['[Z-a]', 'Y', false, false],
    ['[!A]', 'a', false, true],
    ['[!A]', 'b', true, true],
    ['[!a-z]', 'Q', false, true],
  ] as const)('%s on %s: %s ignoring case, %s otherwise', (pattern, path, ignoringCase, caseSensitive) => {
    expect(naiveMatch(pattern, path, { ignoreCase: true })).toBe(ignoringCase);
    expect(naiveMatch(pattern, path)).toBe(caseSensitive);
  });
});
