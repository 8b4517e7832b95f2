// Where matchPath differs from micromatch (options { dot: true, posix: true }, the closest match: `dot` for
// dotfiles, `posix` so `[!a]` is a negated class). Ours wins; each difference is pinned here by name, with
// micromatch's current answer, so an upgrade that changes it shows up.
import micromatch from 'micromatch';
import { describe, expect, test } from 'vitest';
import { matchPath } from '../../../src/core/glob';

const OPTIONS = { dot: true, posix: true };

// [name, pattern, path, ours, micromatch]
const DIFFERENCES: Array<[string, string, string, boolean, boolean]> = [
  ['single-alternative brace is a group, not literal text', '{a}', 'a', true, false],
  ['empty segments from braces vanish', 'a/{x,}/c', 'a/c', true, false],
  ['trailing slash inside braces adds nothing', '{a/,b}', 'a', true, false],
  ['`**` assembled by brace expansion is a globstar', '{*,a}*', 'x/y', true, false],
  ['`*/**` matches zero segments after a wildcard segment, like `a/**` matches `a`', '*/**', 'a', true, false],
  ['`a*/**` matches zero segments too', 'a*/**', 'ab', true, false],
  ['a class never matches `/`, even through a range', 'a[.-0]b', 'a/b', false, true],
  ['`*` before `.*` may be empty (picomatch dot guard)', '*.*', 'a.', true, false],
  ['`.*` inside braces may match nothing after the dot', '{a.*,b}', 'a.', true, false],
  ['`**` sharing its segment never crosses `/`', '**.a', 'x/.a', false, true],
  ['a `*` alternative after `**/` needs a segment', 'a/**/{x,*}', 'a', false, true],
  ['`..` inside a multi-alternative brace is literal text', '{x,a..b}', 'a..b', true, false],
];

describe('documented differences from micromatch', () => {
  test.each(DIFFERENCES)('%s: %s vs %s', (_name, pattern, path, ours, theirs) => {
    expect(matchPath(pattern, path)).toBe(ours);
    expect(micromatch.isMatch(path, pattern, OPTIONS)).toBe(theirs);
  });

  test('without posix: true micromatch reads [!a] wrongly, which is why the options include it', () => {
    expect(micromatch.isMatch('a', '[!a]', { dot: true })).toBe(true);
    expect(micromatch.isMatch('a', '[!a]', OPTIONS)).toBe(false);
    expect(matchPath('[!a]', 'a')).toBe(false);
  });

  test('brace ranges are refused rather than expanded', async () => {
    const { normalizePattern } = await import('../../../src/core/glob');
    expect(micromatch.isMatch('2', '{1..3}', OPTIONS)).toBe(true);
    expect(() => normalizePattern('{1..3}', { root: '/r' })).toThrowError(/brace ranges/);
  });
});
