// The worst accepted pairs: adversarial patterns at the complexity limits (many brace alternatives in one
// segment, 32 wildcards, 4 globstars, 255-long segments with classes, mixes), each accepted and decided
// right. worst-pairs.json is shared with scripts/glob-worst.mjs, which times them (no timing here).
// The segment decider itself, long segments included, is checked in segment.test.ts.
import { describe, expect, test } from 'vitest';
import { matchPath, normalizePattern, overlaps } from '../../../src/core/glob';
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
