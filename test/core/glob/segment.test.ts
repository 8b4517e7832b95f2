// The segment decider (src/core/glob/segment.ts, docs/design/overlap.md section 4) against two independent oracles:
// a brute-force search over representative characters and the product search of segment-search.ts. Every
// witness it returns, long segments included, must be a name both sides match (isCommonName, a matcher
// written for the tests).
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { type CharSet, UNIVERSE, contains, intersect, single } from '../../../src/core/glob/charset';
import type { Item, Segment } from '../../../src/core/glob/expand';
import { segmentWitness, shapeWitness } from '../../../src/core/glob/segment';
import { shapeOf } from '../../../src/core/glob/segment-shape';
import { isCommonName, searchCommonName } from './segment-search';

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
  intersect(
    [
      [0x2e, 0x2e],
      [0x61, 0x61],
    ],
    UNIVERSE,
  ),
  intersect(
    [
      [0x01, 0x2d],
      [0x2f, 0x60],
      [0x63, 0x10ffff],
    ],
    UNIVERSE,
  ), // [!ab.]
  intersect(
    [
      [0x01, 0x60],
      [0x62, 0x10ffff],
    ],
    UNIVERSE,
  ), // [!a]
];

const STAR: Item = { kind: 'star' };

// Drops a star that follows a star (compiled segments never hold two in a row).
const collapseStars = (items: Item[]): Item[] => items.filter((item, i) => item.kind !== 'star' || items[i - 1]?.kind !== 'star');

// Random segments, long ones included, with runs of one letter so chunks nearly fit (the costly case).
const segmentArb = (maxLength: number, starWeight: number): fc.Arbitrary<Item[]> =>
  fc
    .array(
      fc.oneof(
        { weight: starWeight, arbitrary: fc.constant<Item>(STAR) },
        { weight: 20, arbitrary: fc.constant<Item>({ kind: 'set', set: SETS[0]! }) },
        { weight: 6, arbitrary: fc.constantFrom(...SETS).map((set): Item => ({ kind: 'set', set })) },
      ),
      { minLength: 1, maxLength },
    )
    .map(collapseStars);

// Code points around the edges the decider cares about: `.`, letters, `x` (its favourite), an astral one
// (two UTF-16 units: no indexOf shortcut), and the ends of the universe.
const POINTS = [0x01, 0x2e, 0x61, 0x62, 0x78, 0x7f, 0xe9, 0x1f600, 0x10ffff];

// Random sets of those points and ranges between them: not unions of representatives, so only the product
// search can judge them.
const setArb: fc.Arbitrary<CharSet> = fc.array(fc.tuple(fc.constantFrom(...POINTS), fc.constantFrom(...POINTS)), { minLength: 1, maxLength: 3 }).map((pairs) =>
  intersect(
    pairs
      .map(([x, y]): [number, number] => [Math.min(x, y), Math.max(x, y)])
      .sort((p, q) => p[0] - q[0])
      .reduce<Array<[number, number]>>((out, r) => {
        const last = out[out.length - 1];
        if (last !== undefined && r[0] <= last[1] + 1) last[1] = Math.max(last[1], r[1]);
        else out.push([r[0], r[1]]);
        return out;
      }, []),
    UNIVERSE,
  ),
);

const wideSegmentArb = (maxLength: number): fc.Arbitrary<Item[]> =>
  fc
    .array(
      fc.oneof(
        { weight: 2, arbitrary: fc.constant<Item>(STAR) },
        { weight: 5, arbitrary: fc.constantFrom(...POINTS).map((cp): Item => ({ kind: 'set', set: single(cp) })) },
        { weight: 3, arbitrary: setArb.map((set): Item => ({ kind: 'set', set })) },
      ),
      { minLength: 1, maxLength },
    )
    .map(collapseStars);

// The decider on bare item sequences.
function itemsWitness(a: readonly Item[], b: readonly Item[]): string | undefined {
  return shapeWitness(shapeOf(a), shapeOf(b));
}

// The decider's answer for both orders: defined alike, and every witness a name both sides match.
function checkedWitness(a: readonly Item[], b: readonly Item[]): boolean {
  const forward = itemsWitness(a, b);
  const backward = itemsWitness(b, a);
  expect(backward !== undefined).toBe(forward !== undefined);
  for (const w of [forward, backward]) {
    if (w === undefined) continue;
    expect(isCommonName(a, w), `witness ${JSON.stringify(w)} for a`).toBe(true);
    expect(isCommonName(b, w), `witness ${JSON.stringify(w)} for b`).toBe(true);
  }
  return forward !== undefined;
}

describe('the segment decider against brute force and the product search', () => {
  test.each([
    ['short segments', 6, 2],
    ['long segments, few stars (chunks over 32 items)', 120, 1],
    ['long segments, many stars', 80, 6],
    ['segments at the length limit', 255, 3],
  ] as const)('%s: same verdict, every witness checked', (_name, maxLength, starWeight) => {
    fc.assert(
      fc.property(segmentArb(maxLength, starWeight), segmentArb(maxLength, starWeight), (a, b) => {
        const expected = bruteMeet(a, b);
        expect(checkedWitness(a, b)).toBe(expected);
        expect(searchCommonName(a, b) !== undefined).toBe(expected);
      }),
      { numRuns: maxLength > 200 ? 300 : 1500 },
    );
  });

  test.each([
    ['short', 4],
    ['long', 60],
  ] as const)('%s segments over arbitrary sets (astral, ranges, dots): same verdict as the product search', (_name, maxLength) => {
    let defined = 0;
    fc.assert(
      fc.property(wideSegmentArb(maxLength), wideSegmentArb(maxLength), (a, b) => {
        const expected = searchCommonName(a, b) !== undefined;
        const got = checkedWitness(a, b);
        expect(got).toBe(expected);
        if (got) defined++;
      }),
      { numRuns: 1500 },
    );
    expect(defined).toBeGreaterThan(50);
  });

  test('related pairs (one side cut from the other) meet often, and every witness holds', () => {
    let defined = 0;
    fc.assert(
      fc.property(segmentArb(200, 2), fc.nat(), fc.nat(), (a, i, j) => {
        const from = i % a.length;
        const to = from + 1 + (j % (a.length - from));
        const b = collapseStars([STAR, ...a.slice(from, to), STAR]);
        const got = checkedWitness(a, b);
        expect(got).toBe(bruteMeet(a, b));
        if (got) defined++;
      }),
      { numRuns: 1000 },
    );
    expect(defined).toBeGreaterThan(300);
  });
});

// Items of a literal string, one set per code point.
const lit = (s: string): Item[] => Array.from(s, (ch): Item => ({ kind: 'set', set: single(ch.codePointAt(0)!) }));
const cls = (...ranges: Array<[number, number]>): Item => ({ kind: 'set', set: intersect(ranges, UNIVERSE) });
const chars = (items: Item[], literal?: string): Segment => ({ kind: 'chars', items, key: literal ?? JSON.stringify(items), literal });

describe('the dot rule, applied by the decider itself', () => {
  test.each([
    ['"." is no name, literally', chars(lit('.'), '.'), chars(lit('.'), '.'), undefined],
    ['".." is no name, literally', chars(lit('..'), '..'), chars(lit('..'), '..'), undefined],
    ['equal literals', chars(lit('a.ts'), 'a.ts'), chars(lit('a.ts'), 'a.ts'), 'a.ts'],
    ['any name vs "."', undefined, chars(lit('.'), '.'), undefined],
    ['any name vs "..."', undefined, chars(lit('...'), '...'), '...'],
    // `[.a].` against `*.*`: the leftmost place for the chunk "." gives "..", a later one "a.".
    ['a later layout avoids ".."', chars([cls([0x2e, 0x2e], [0x61, 0x61]), ...lit('.')]), chars([STAR, ...lit('.'), STAR]), 'a.'],
    ['two starred sides whose shortest common string is ".."', chars([...lit('.'), STAR]), chars([STAR, ...lit('.')]), '.x.'],
  ] as const)('%s', (_name, x, y, expected) => {
    expect(segmentWitness(x, y)).toBe(expected);
    expect(segmentWitness(y, x)).toBe(expected);
  });
});
