import { describe, expect, test } from 'vitest';
import { matchPath, overlaps } from '../../../src/core/glob';

// [name, a, b, expected overlap]; every case runs in both argument orders.
const CASES: Array<[string, string, string, boolean]> = [
  // literals
  ['same literal', 'src/a.ts', 'src/a.ts', true],
  ['different literal', 'src/a.ts', 'src/b.ts', false],
  ['literal prefix is not a match', 'src', 'src/a.ts', false],
  ['literal deeper path', 'a/b/c', 'a/b', false],
  ['case-sensitive literals', 'README.md', 'readme.md', false],
  // star
  ['star vs literal', 'src/*.ts', 'src/a.ts', true],
  ['star vs other extension', '*.ts', '*.js', false],
  ['star prefix vs star suffix', 'src/a*', 'src/*b', true],
  ['star never crosses slash', 'src/*', 'src/a/b', false],
  ['star vs star', '*', '*', true],
  ['star matches dotfile', '*', '.env', true],
  ['star suffix and prefix disjoint lengths', 'ab*', '*ba', true],
  ['star with fixed infix', 'a*b*c', '*x*', true],
  ['star cannot make a segment empty', 'a/*/b', 'a/b', false],
  ['star extension vs dotted literal', '*.test.ts', 'src.test.ts', true],
  ['two stars need both letters', '*a*', '*b*', true],
  ['star-only segment vs dot segment impossibility', '*', '.', false],
  ['star-dot vs dot-star', '*.', '.*', true],
  ['star vs double-dot prefix', '..*', '*', true],
  // question mark
  ['qmark vs single char', '?', 'a', true],
  ['qmark vs two chars', '?', 'ab', false],
  ['qmark matches dot-led name', '?a', '.a', true],
  ['qmark-dot vs dot-qmark only share ..', 'a/?.', 'a/.?', false],
  ['qmark alone vs dot-only class', '?', '[.]', false],
  ['two qmarks vs dot dot', '??', '.[.]', false],
  ['three qmarks vs dots', '???', '..[.]', true],
  ['qmark is a code point', '?', 'é', true],
  ['qmark is one astral code point', '?', '😀', true],
  ['two qmarks vs one astral', '??', '😀', false],
  ['qmark vs star-ext', '?.ts', '*.ts', true],
  // classes
  ['class vs member', '[abc]', 'b', true],
  ['class vs non-member', '[abc]', 'd', false],
  ['range vs negated range', '[a-c]', '[!a-c]', false],
  ['caret negation equals bang', '[^a]', '[!a]', true],
  ['caret negation vs excluded char', '[^a]', 'a', false],
  ['bang negation vs other char', '[!a]', 'b', true],
  ['overlapping ranges', '[a-m]', '[k-z]', true],
  ['disjoint ranges', '[a-f]', '[g-z]', false],
  ['class with escaped bracket', '[\\]]', ']', true],
  ['negated class vs dot', '[!.]', '.', false],
  ['class dot vs qmark in longer name', '[.]x', '?x', true],
  ['negated class never matches slash', 'a[!b]c', 'a/c', false],
  ['range spanning slash skips it', 'a[.-0]b', 'a/b', false],
  ['range spanning slash keeps neighbours', 'a[.-0]b', 'a0b', true],
  ['class vs star', '[xyz]*', '*[0-9]', true],
  ['digit class vs letter class', '[0-9]', '[a-z]', false],
  ['class of dot only vs star', '[.][.]', '*', false],
  ['class of dot only three long', '[.][.][.]', '*', true],
  ['unicode class range', '[à-ÿ]', 'é', true],
  // globstar
  ['globstar vs literal inside', 'src/**', 'src/a.ts', true],
  ['globstar matches the dir itself', 'src/**', 'src', true],
  ['globstar in the middle, zero segments', 'a/**/b', 'a/b', true],
  ['globstar in the middle, many segments', 'a/**/b', 'a/x/y/b', true],
  ['globstar alone vs anything', '**', 'deep/er/path.md', true],
  ['globstar alone vs star', '**', '*', true],
  ['globstar alone vs dotfile', '**', '.git/config', true],
  ['globstar vs globstar', '**', '**', true],
  ['globstar different roots', 'src/**', 'lib/**', false],
  ['leading globstar vs ext', '**/*.ts', 'src/deep/a.ts', true],
  ['leading globstar vs other ext', '**/*.ts', 'src/**/*.js', false],
  ['two globstar patterns', 'a/**/c', '**/b/**', true],
  ['globstar both sides ends differ', '**/x', '**/y', false],
  ['globstar needs b before c', 'a/**/b/c', 'a/c', false],
  ['globstar in mid segment is a star', 'a**b', 'axyb', true],
  ['mid-segment globstar does not cross slash', 'a**b', 'ax/yb', false],
  ['triple star is a star', '***', 'a/b', false],
  ['globstar vs deeper literal under other dir', 'src/**/test/*.ts', 'src/test/a.ts', true],
  ['globstar then star needs a segment', 'a/**/*', 'a', false],
  ['dir-globstar vs its parent', 'a/b/**', 'a', false],
  // braces
  ['brace vs one alternative', '{a,b}', 'a', true],
  ['brace vs none', '{a,b}', 'c', false],
  ['brace with slash', '{src/a,lib}/*.ts', 'src/a/x.ts', true],
  ['brace with slash other branch', '{src/a,lib}/*.ts', 'lib/x.ts', true],
  ['brace with slash no branch', '{src/a,lib}/*.ts', 'src/x.ts', false],
  ['nested braces', '{a,{b,{c,d}}}', 'd', true],
  ['nested braces miss', '{a,{b,{c,d}}}', 'e', false],
  ['brace extension list', '**/*.{js,jsx,ts,tsx,json,md}', 'src/**/*.{ts,tsx}', true],
  ['brace extension lists disjoint', '*.{ts,tsx}', '*.{js,jsx}', false],
  ['single-alternative brace groups', '{a}', 'a', true],
  ['empty alternative is optional text', 'a{,b}', 'a', true],
  ['empty alternative with dir is optional dir', 'a/{,b/}c', 'a/c', true],
  ['braces vs braces', '{a,b}{c,d}', '{b,x}{d,y}', true],
  ['braces vs braces disjoint', '{a,b}{c,d}', '{b,x}{e,y}', false],
  ['brace with globstar alternative', '{**,x}/y', 'a/b/y', true],
  ['brace makes a globstar segment', '{*,a}*', 'p/q', true],
  ['packages glob', 'packages/*/src/**', 'packages/ui/src/index.ts', true],
  ['packages glob vs other package root', 'packages/*/src/**', 'packages/ui/test/a.ts', false],
  // escapes
  ['escaped star vs star', '\\*', '*', true],
  ['escaped star vs letter', '\\*', 'a', false],
  ['escaped star vs literal star file', '\\*', '\\*', true],
  ['escaped qmark', 'a\\?', 'ab', false],
  ['escaped brace', '\\{a,b\\}', '\\{*', true],
  ['escaped brace is not alternatives', '\\{a,b\\}', 'a', false],
  ['escaped bracket is not a class', '\\[id\\]/page.tsx', 'i/page.tsx', false],
  ['escaped bracket literal dir', '\\[id\\]/page.tsx', '\\[id\\]/*', true],
  ['escaped letter is the letter', '\\a', 'a', true],
  // dots
  ['dotfile vs star-ext', '.eslintrc.*', '*.json', true],
  ['dot-led star', '.*', 'a*', false],
  ['dot segment impossible via braces of classes', '[.]', '*', false],
  ['env files', '.env*', '*', true],
  // unicode
  ['unicode literal', 'docs/é.md', 'docs/*.md', true],
  ['unicode vs ascii', 'é', 'e', false],
  ['emoji star', '😀*', '*😀', true],
  // combinations
  ['star class combo', 'src/[a-c]*.ts', 'src/*[!s].ts', true],
  ['disjoint by last char class', '*[ab]', '*[cd]', false],
  ['test files vs sources', 'src/**/*.test.ts', 'src/**/*.ts', true],
  ['tests vs one dir of sources', 'src/**/*.test.ts', 'src/a/*.ts', true],
  ['long literal vs star middle', 'a/b/c/d/e/f.ts', 'a/*/c/**/f.ts', true],
  ['globstar both need different tails', 'a/**/x.ts', 'b/**/x.ts', false],
];

describe('overlaps (named table)', () => {
  test('the table is large enough', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(90);
  });
  test.each(CASES)('%s: %s vs %s → %s', (_name, a, b, expected) => {
    for (const [x, y] of [
      [a, b],
      [b, a],
    ] as const) {
      const result = overlaps(x, y);
      expect(result.overlap).toBe(expected);
      if (expected) {
        expect(result.example).toBeDefined();
        expect(matchPath(x, result.example!)).toBe(true);
        expect(matchPath(y, result.example!)).toBe(true);
      } else expect(result.example).toBeUndefined();
    }
  });
});

describe('overlaps examples read well', () => {
  test.each([
    ['src/**', 'src/app/*.ts', 'src/app/x.ts'],
    ['**', '**', 'x'],
    ['*.ts', '**', 'x.ts'],
    ['src/a*', 'src/*b', 'src/ab'],
    ['*', '.env', '.env'],
    ['**/*.{js,jsx,ts,tsx,json,md}', 'src/**/*.{ts,tsx}', 'src/x.ts'],
  ])('%s vs %s → %s', (a, b, example) => {
    expect(overlaps(a, b)).toEqual({ overlap: true, example });
  });
});
