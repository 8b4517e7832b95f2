import { describe, expect, test } from 'vitest';
import { escapeLiteralPath, isLiteral, literalBase, matchPath, normalizePattern, unescapeLiteral } from '../../../src/core/glob';

describe('literalBase', () => {
  test.each([
    ['src/**/*.ts', 'src'],
    ['src/a.ts', 'src/a.ts'],
    ['**', ''],
    ['{a,b}/x', ''],
    ['*.ts', ''],
    ['packages/*/src/**', 'packages'],
    ['a/b/c{d,e}/f', 'a/b'],
    ['a/b[cd]/e', 'a'],
    ['app/\\[id\\]/*', 'app/[id]'],
    ['a/b?/c', 'a'],
  ])('%s → %j', (pattern, base) => {
    expect(literalBase(pattern)).toBe(base);
  });
});

describe('isLiteral / unescapeLiteral / escapeLiteralPath', () => {
  test.each([
    ['src/a.ts', true],
    ['src/*.ts', false],
    ['src/\\*.ts', true],
    ['{a,b}', false],
    ['[ab]', false],
    ['a?', false],
    ['app/\\[id\\]', true],
  ])('isLiteral(%s) = %s', (pattern, literal) => {
    expect(isLiteral(pattern)).toBe(literal);
  });

  test.each(['src/a.ts', 'app/[id]/page.tsx', 'weird/*?{}[]\\name', '!bang/first', 'a/+(x)/@(y)/!(z)', 'commas,are/fine', 'ünïcødé/😀.md'])(
    'escapeLiteralPath(%j) is a literal pattern matching exactly that path',
    (path) => {
      const pattern = escapeLiteralPath(path);
      expect(isLiteral(pattern)).toBe(true);
      expect(unescapeLiteral(pattern)).toBe(path);
      expect(matchPath(pattern, path)).toBe(true);
      expect(matchPath(pattern, `${path}x`)).toBe(false);
      const normalized = normalizePattern(pattern, { root: '/r' });
      expect(unescapeLiteral(normalized)).toBe(path);
    },
  );
});

describe('matchPath', () => {
  test.each([
    ['a/**', 'a', true], // like micromatch: `dir/**` matches the directory itself
    ['a/**', 'a/b/c', true],
    ['**', '.git/config', true],
    ['*', '.env', true],
    ['*', 'a/b', false],
    ['a/*', 'a', false],
    ['**/a', 'a', true],
    ['a/**/b', 'a/b', true],
    ['a/**/b', 'a/x/y/b', true],
    ['a**b', 'axb', true],
    ['a**b', 'a/b', false],
    ['?', 'é', true],
    ['?', '😀', true],
    ['??', '😀', false],
    ['[!a]', 'b', true],
    ['[^a]', 'a', false],
    ['{a}', 'a', true], // one alternative is still an alternative
    ['{a}', '{a}', false],
    ['a/{x,}/c', 'a/c', true], // empty segments from braces vanish
    ['{src/,lib}', 'src', true], // a trailing slash inside braces adds nothing
    ['\\*', '*', true],
    ['\\*', 'a', false],
    ['*'.repeat(1) + 'a*'.repeat(15) + 'b', 'a'.repeat(100), false], // linear time, no backtracking blowup
    ['src/a.ts', './src/a.ts', false], // not a normalized path
    ['**', 'a//b', false],
    ['**', 'a/../b', false],
    ['**', '', false],
  ])('matchPath(%j, %j) = %s', (pattern, path, expected) => {
    expect(matchPath(pattern, path)).toBe(expected);
  });
});
