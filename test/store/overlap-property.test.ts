// The overlap property through the store (issue #24): random held patterns, random requests, and the store's
// answer (check and reserve, with the SQL prefilter by literal base in front of the core's overlap) compared
// with overlaps() and the brute-force oracle (test/core/glob/oracle.ts). Runs on SQLite in `npm test` and on
// PostgreSQL in `npm run test:postgres` (test/postgres/conformance.mts): the prefilter's range read must order
// text by bytes on both, whatever the characters of the literal directories.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { check } from '../../src/coord/check';
import { release } from '../../src/coord/release';
import { reserveOnce } from '../../src/coord/reserve';
import { normalizePattern, overlaps } from '../../src/core/glob';
import { enumeratePaths, naiveMatcher, patternArb } from '../core/glob/oracle';
import { TEST_ENGINE } from '../support/engine';
import { useTestStore } from '../support/store';

const RUNS = Number(process.env.FUZZ_RUNS_STORE ?? 40);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const PATHS = enumeratePaths(['a', 'b', '.', '*', '/'], 4);

// Literal directories whose bytes sort differently under a locale's collation than in byte order.
const PREFIXES = ['', '', 'a/', 'b/', 'a/b/', 'A/', 'B/', 'a-b/', 'a_b/', 'a.b/', 'ab/', 'a b/', 'Z/', 'é/', 'e/', 'a~/', 'a/B/'];

const patternUnder = fc
  .tuple(fc.constantFrom(...PREFIXES), patternArb)
  .map(([prefix, raw]) => {
    try {
      return normalizePattern(prefix + raw.replace(/^\/+/, ''), { root: '/r' });
    } catch {
      return undefined; // text normalizePattern refuses
    }
  })
  .filter((p): p is string => p !== undefined);

// The oracle's word: some small path under one of the prefixes that both patterns match.
function oracleCommonPath(a: string, b: string): string | undefined {
  const [matchA, matchB] = [naiveMatcher(a), naiveMatcher(b)];
  for (const prefix of new Set(PREFIXES))
    for (const tail of PATHS) {
      const path = prefix + tail;
      if (matchA(path) && matchB(path)) return path;
    }
  return undefined;
}

const store = useTestStore({ IC_LOCK_DELAY: '0s' });

describe(`overlap through the store on ${TEST_ENGINE} (${RUNS} runs)`, () => {
  it('check and reserve meet exactly the held patterns that overlap the request', async () => {
    let round = 0;
    const seen = { conflicts: 0, free: 0 };
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(patternUnder, { minLength: 1, maxLength: 6 }), fc.array(patternUnder, { minLength: 1, maxLength: 3 }), async (held, requests) => {
        round++;
        const holders = held.map((pattern, i) => ({ owner: `holder-${round}-${i}`, pattern }));
        // Shared holds coexist whatever they overlap; an exclusive request meets every overlapping one.
        for (const { owner, pattern } of holders) {
          const granted = await reserveOnce(store.ctx, { type: 'file', patterns: [pattern], owner, mode: 'shared', ttlMs: 60_000, reason: null });
          expect(granted.granted, `shared ${pattern}`).toBe(true);
        }
        const asker = `asker-${round}`;
        try {
          for (const request of requests) {
            const expected = holders.filter((h) => overlaps(h.pattern, request).overlap).map((h) => h.owner);
            for (const h of holders) {
              const common = oracleCommonPath(h.pattern, request);
              if (common !== undefined) expect(expected, `${h.pattern} | ${request} share ${common}`).toContain(h.owner);
            }
            const conflicts = await check(store.ctx, { type: 'file', patterns: [request], owner: asker, mode: 'exclusive' });
            expect([...new Set(conflicts.map((c) => c.held.owner))].sort(), `check ${request} against ${held.join(' ')}`).toEqual([...expected].sort());
            for (const conflict of conflicts) expect(naiveMatcher(conflict.held.pattern)(conflict.example) && naiveMatcher(request)(conflict.example), `example ${conflict.example}`).toBe(true);
            const outcome = await reserveOnce(store.ctx, { type: 'file', patterns: [request], owner: asker, mode: 'exclusive', ttlMs: 60_000, reason: null });
            expect(outcome.granted, `reserve ${request}`).toBe(expected.length === 0);
            if (outcome.granted) {
              seen.free++;
              await release(store.ctx, { ids: [], owner: asker, all: true, force: false, reason: null });
            } else seen.conflicts++;
          }
        } finally {
          for (const { owner } of holders) await release(store.ctx, { ids: [], owner, all: true, force: false, reason: null });
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
    // Both answers were exercised, not vacuously true.
    expect(seen.conflicts).toBeGreaterThan(RUNS / 10);
    expect(seen.free).toBeGreaterThan(RUNS / 10);
  }, 120_000);
});
