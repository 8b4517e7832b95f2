// The glob core's one piece of state (src/core/glob/cache.ts, docs/design/overlap.md section 6): explicit caches answer
// as the shared one does, each validates what it compiles, and a full cache is emptied, never wrong.
import { describe, expect, test } from 'vitest';
import { GlobCache, matchPath, overlaps } from '../../../src/core/glob';
import { IcError } from '../../../src/core/errors';

const PAIRS: Array<[string, string]> = [
  ['src/**', 'src/a.ts'],
  ['*.ts', '*.js'],
  ['a/?.', 'a/.?'],
  ['**/*.{ts,tsx}', 'lib/[a-m]*/x.tsx'],
];

describe('GlobCache', () => {
  test('a new cache answers exactly as the shared one, example included', () => {
    for (const [a, b] of PAIRS) expect(overlaps(a, b, new GlobCache())).toEqual(overlaps(a, b));
  });

  test('matchPath through an explicit cache', () => {
    const cache = new GlobCache();
    expect(matchPath('src/**/*.ts', 'src/a/b.ts', cache)).toBe(true);
    expect(matchPath('src/**/*.ts', 'src/a/b.js', cache)).toBe(false);
  });

  test('every cache bounds what it compiles (TOO_COMPLEX), however the shared one was used', () => {
    const tooMany = `${'*a'.repeat(40)}`;
    for (const cache of [new GlobCache(), new GlobCache()]) {
      expect(() => overlaps(tooMany, 'x', cache)).toThrow(IcError);
    }
  });

  test('deciding far more pairs than it keeps leaves every answer right', () => {
    const cache = new GlobCache();
    // 60 starred segments of ~250 characters: 3,600 pairs of about 750 characters of keys and witness each,
    // more than twice what the cache keeps, so it is emptied along the way.
    const segment = (i: number): string => `*${String(i).padStart(3, '0')}${'a'.repeat(240)}*`;
    const first = overlaps(`d/${segment(0)}`, `d/${segment(1)}`, cache);
    for (let i = 0; i < 60; i++) for (let j = 0; j < 60; j++) overlaps(`d/${segment(i)}`, `d/${segment(j)}`, cache);
    const again = overlaps(`d/${segment(0)}`, `d/${segment(1)}`, cache);
    expect(again).toEqual(first);
    expect(again.overlap).toBe(true);
    expect(matchPath(`d/${segment(0)}`, again.example!)).toBe(true);
    expect(matchPath(`d/${segment(1)}`, again.example!)).toBe(true);
  });
});
