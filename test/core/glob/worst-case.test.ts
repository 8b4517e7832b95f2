// The worst accepted pairs: adversarial patterns at the complexity limits (many brace alternatives in one
// segment, 32 wildcards, 4 globstars, 255-long segments with classes, mixes), each accepted and decided
// right. worst-pairs.json is shared with scripts/glob-worst.mjs, which times them (no timing here).
// The long-segment deciders of segment-meet.ts are also checked against a brute-force product search.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { matchPath, normalizePattern, overlaps } from '../../../src/core/glob';
import { type CharSet, UNIVERSE, contains, intersect, single } from '../../../src/core/glob/charset';
import type { Item } from '../../../src/core/glob/expand';
import { segmentsMeet } from '../../../src/core/glob/segment-meet';
import { intersectSegments } from '../../../src/core/glob/segment-overlap';
import PAIRS from './worst-pairs.json';
import REFUSED from './refused-pairs.json';
import { IcError } from '../../../src/core/errors';

const OPTIONS = { root: '/r' };
const pairs = PAIRS as Array<[string, string, string, boolean]>;

describe('worst accepted pairs', () => {
  test('there are at least 20 of them', () => {
    expect(pairs.length).toBeGreaterThanOrEqual(20);
  });

  test.each(pairs)('%s', (_name, rawA, rawB, expected) => {
    const a = normalizePattern(rawA, OPTIONS);
    const b = normalizePattern(rawB, OPTIONS);
    const result = overlaps(a, b);
    expect(result.overlap).toBe(expected);
    expect(overlaps(b, a).overlap).toBe(expected);
    if (result.overlap) {
      expect(matchPath(a, result.example!)).toBe(true);
      expect(matchPath(b, result.example!)).toBe(true);
    }
  });
});

// The former worst pairs (16 expansions of ~255-character segments, 1-1.2 ms to decide cold) now stop at
// the expandedLength limit, which is what keeps the worst accepted pair under 1 ms.
describe('pairs past the expanded-length limit', () => {
  test.each(REFUSED as Array<[string, string, string, boolean]>)('%s', (_name, rawA, rawB) => {
    const refused = [rawA, rawB].filter((raw) => {
      try {
        normalizePattern(raw, OPTIONS);
        return false;
      } catch (error) {
        expect(error).toBeInstanceOf(IcError);
        expect((error as IcError).code).toBe('TOO_COMPLEX');
        expect((error as IcError).details.limit).toBe('expandedLength');
        return true;
      }
    });
    expect(refused.length).toBeGreaterThan(0);
  });

  test('real patterns stay far below it', () => {
    for (const raw of ['packages/{a,b,c,d}/src/**/*.{ts,tsx,js,jsx}', '**/*.{js,jsx,ts,tsx,json,md}', '{src,lib,test}/**/*.{ts,tsx}']) {
      expect(() => normalizePattern(raw, OPTIONS)).not.toThrow();
    }
  });
});

// Brute-force oracle for one segment pair: breadth-first search over (position in a, position in b, name
// shape) with characters drawn from a few representatives; exact because every set used is a union of
// whole representative classes (see SETS), and "." is tracked so "." and ".." are refused.
function bruteMeet(a: readonly Item[], b: readonly Item[]): boolean {
  const reps = [0x61, 0x62, 0x2e, 0x78];
  const seen = new Set<string>();
  const queue: Array<[number, number, number]> = [];
  const push = (i: number, j: number, k: number): void => {
    const key = `${i},${j},${k}`;
    if (seen.has(key)) return;
    seen.add(key);
    queue.push([i, j, k]);
    if (i < a.length && a[i]!.kind === 'star') push(i + 1, j, k);
    if (j < b.length && b[j]!.kind === 'star') push(i, j + 1, k);
  };
  const has = (item: Item, cp: number): boolean => (item.kind === 'star' ? contains(UNIVERSE, cp) : contains(item.set, cp));
  push(0, 0, 0);
  for (let h = 0; h < queue.length; h++) {
    const [i, j, k] = queue[h]!;
    if (i === a.length && j === b.length && k === 3) return true;
    if (i === a.length || j === b.length) continue;
    for (const cp of reps) {
      if (!has(a[i]!, cp) || !has(b[j]!, cp)) continue;
      const nk = cp !== 0x2e ? 3 : Math.min(3, k + 1);
      push(a[i]!.kind === 'star' ? i : i + 1, b[j]!.kind === 'star' ? j : j + 1, nk);
    }
  }
  return false;
}

// Sets over the representatives a, b, x, "." (x stands for every other character).
const SETS: CharSet[] = [
  single(0x61),
  single(0x62),
  single(0x2e),
  intersect([[0x61, 0x62]], UNIVERSE),
  intersect([[0x2e, 0x2e], [0x61, 0x61]], UNIVERSE),
  intersect([[0x01, 0x2d], [0x2f, 0x60], [0x63, 0x10ffff]], UNIVERSE), // [!ab.]
  intersect([[0x01, 0x60], [0x62, 0x10ffff]], UNIVERSE), // [!a]
];

// Random segments, long ones included, with runs of one letter so chunks nearly fit (the costly case).
const segmentArb = (maxLength: number, starWeight: number): fc.Arbitrary<Item[]> =>
  fc
    .array(
      fc.oneof(
        { weight: starWeight, arbitrary: fc.constant<Item>({ kind: 'star' }) },
        { weight: 20, arbitrary: fc.constant<Item>({ kind: 'set', set: SETS[0]! }) },
        { weight: 6, arbitrary: fc.constantFrom(...SETS).map((set): Item => ({ kind: 'set', set })) },
      ),
      { minLength: 1, maxLength },
    )
    .map((items) => items.filter((item, i) => item.kind !== 'star' || items[i - 1]?.kind !== 'star'));

describe('segment deciders against a brute-force product search', () => {
  test.each([
    ['short segments', 6, 2],
    ['long segments, few stars (chunks over 32 items)', 120, 1],
    ['long segments, many stars', 80, 6],
  ] as const)('%s', (_name, maxLength, starWeight) => {
    fc.assert(
      fc.property(segmentArb(maxLength, starWeight), segmentArb(maxLength, starWeight), (a, b) => {
        const expected = bruteMeet(a, b);
        expect(segmentsMeet(a, b)).toBe(expected);
        expect(segmentsMeet(b, a)).toBe(expected);
        expect(intersectSegments(a, b) !== undefined).toBe(expected);
      }),
      { numRuns: 1500 },
    );
  });
});
