import { describe, expect, it } from 'vitest';
import { findGateItems, parseGatePattern } from '../../src/core/gate-pattern';
import { expectLinear } from '../support/growth';

const items = (pattern: string, text: string) => findGateItems(parseGatePattern(pattern), text);

describe('the commit gate pattern (restricted syntax, linear-time matcher)', () => {
  it('finds items leftmost-longest, left to right, as a RegExp would for these patterns', () => {
    const text = 'bd-12: fix bd-13 and bd-x, not bd- or BD-1; bd-123abc';
    expect(items('bd-[0-9a-z]+', text)).toEqual(['bd-12', 'bd-13', 'bd-x', 'bd-123abc']);
    expect(items('bd-[0-9a-z]+', text)).toEqual([...text.matchAll(/bd-[0-9a-z]+/g)].map((m) => m[0]));
    expect(items('[A-Z]+-[0-9]+', 'ABC-12 x-1 PROJ-4, Z-')).toEqual(['ABC-12', 'PROJ-4']);
    expect(items('#\\d{1,4}', 'fixes #12 and #123456')).toEqual(['#12', '#1234']);
    expect(items('[^ ]+@v\\d?', 'a@v1 b@v c@')).toEqual(['a@v1', 'b@v']);
    expect(items('x\\.y', 'x.y xzy')).toEqual(['x.y']);
    expect(items('é+', 'café éé')).toEqual(['é', 'éé']);
  });

  it.each([
    ['bd-(a+)+!', /groups/],
    ['(', /groups/],
    ['a|b', /groups and \|/],
    ['^bd-1', /anchors/],
    ['bd-1$', /anchors/],
    ['.*', /empty string/],
    ['a?', /empty string/],
    ['a**', /quantified again/],
    ['+a', /nothing to repeat/],
    ['[a-', /not closed/],
    ['[z-a]', /out of order/],
    ['x{99}', /at most 32/],
    ['x{3,1}', /out of order/],
    ['(a)\\1', /groups/],
    ['a\\1', /backreferences/],
    ['', /empty/],
  ])('refuses %j', (pattern, problem) => {
    expect(() => parseGatePattern(pattern)).toThrow(problem);
  });

  it('takes time linear in the message for patterns that make a backtracking engine explode', () => {
    // A backtracking engine needs hours on these; linear time is told by growth, not by a bound in ms.
    const cases: [string, (n: number) => string][] = [
      ['bd-a+a+a+a+a+a+a+a+!', (n) => `bd-${'a'.repeat(n)}`],
      ['[a-z]+!', (n) => 'a'.repeat(n)],
      ['a*a*a*a*a*a*b', (n) => 'a'.repeat(n)],
      ['a[ab]*b', (n) => `${'ab'.repeat(n / 4)}${'a'.repeat(n / 2)}`],
    ];
    for (const [pattern, text] of cases) {
      const compiled = parseGatePattern(pattern);
      expectLinear((scale) => findGateItems(compiled, text(200_000 * scale)), pattern);
    }
  });
});
