// The grouped conflict decision (core/conflict.ts) against the plain one, and the cheap prefilter the
// write lock relies on against the exact overlap check.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkWorkLimit, countComparisons, findGroupConflicts, type LockRequest, mayOverlap, reviseForChanges, WORK_LIMITS } from '../../src/core/conflict';
import { normalizePattern, overlaps } from '../../src/core/glob';
import type { Lock } from '../../src/core/lock';
import { patternArb } from './glob/oracle';

const NOW = 1_000_000;
const POOL = ['src/**', 'src/a.ts', 'src/*.ts', 'src/{a,b}.ts', '**/*.ts', 'docs/**', 'src/b.ts', 'lib/[ab]/x.ts', 'lib/**', '*.md', 'src/a/**', 'docs/x.md'];

const request = (pattern: string, owner = 'me', mode: 'exclusive' | 'shared' = 'exclusive'): LockRequest => ({ type: 'file', scope: '/r', pattern, owner, mode });

function held(i: number, pattern: string, owner: string, mode: 'exclusive' | 'shared', expiresAt = NOW + 60_000): Lock {
  return {
    id: `l${String(i).padStart(7, '0')}`,
    token: 100 + i,
    type: 'file',
    scope: '/r',
    pattern,
    owner,
    mode,
    reason: null,
    created_at: 0,
    expires_at: expiresAt,
    released_at: null,
    release_reason: null,
  };
}

const lockArb = fc.record({
  pattern: fc.constantFrom(...POOL),
  owner: fc.constantFrom('me', 'alice', 'bob'),
  mode: fc.constantFrom('exclusive' as const, 'shared' as const),
  expiry: fc.constantFrom(NOW + 60_000, NOW - 1_000, NOW - 120_000),
});

describe('findGroupConflicts', () => {
  it('gives the answer over all locks when each request sees only the locks that may overlap it', () => {
    fc.assert(
      fc.property(
        fc.array(lockArb, { maxLength: 12 }),
        fc.uniqueArray(fc.constantFrom(...POOL), { minLength: 1, maxLength: 5 }),
        fc.constantFrom('exclusive' as const, 'shared' as const),
        (specs, patterns, mode) => {
          const locks = specs.map((s, i) => held(i, s.pattern, s.owner, s.mode, s.expiry));
          const requests = patterns.map((p) => request(p, 'me', mode));
          const groups = requests.map((r) => ({ request: r, candidates: locks.filter((l) => mayOverlap('file', r.pattern, l.pattern)) }));
          const unnarrowed = requests.map((r) => ({ request: r, candidates: locks }));
          expect(findGroupConflicts(groups, NOW, 60_000)).toEqual(findGroupConflicts(unnarrowed, NOW, 60_000));
          expect(countComparisons(groups)).toBe(groups.reduce((n, g) => n + g.candidates.length, 0));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('reports a lock blocking several requests once, with the first request it blocks', () => {
    const lock = held(1, 'src/**', 'alice', 'exclusive');
    const groups = ['src/b.ts', 'src/a.ts'].map((p) => ({ request: request(p), candidates: [lock] }));
    const conflicts = findGroupConflicts(groups, NOW, 60_000);
    expect(conflicts.map((c) => [c.pattern, c.held.id])).toEqual([['src/b.ts', lock.id]]);
  });
});

describe('mayOverlap (the prefilter used inside the write lock)', () => {
  it('never says no where the exact check finds a common path', () => {
    const normalized = fc
      .tuple(fc.constantFrom('', 'a/', 'b/', 'a/b/'), patternArb)
      .map(([prefix, raw]) => {
        try {
          return normalizePattern(prefix + raw.replace(/^\/+/, ''), { root: '/r' });
        } catch {
          return undefined;
        }
      })
      .filter((p): p is string => p !== undefined);
    fc.assert(
      fc.property(normalized, normalized, (a, b) => {
        if (overlaps(a, b).overlap) expect(mayOverlap('file', a, b)).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it('compares names by equality', () => {
    expect(mayOverlap('named', 'deploy', 'deploy')).toBe(true);
    expect(mayOverlap('claim', 'deploy', 'deploy/x')).toBe(false);
  });
});

describe('reviseForChanges', () => {
  it('finds a changed lock that now blocks, and gives up past its comparison budget', () => {
    const requests = [request('src/a.ts'), request('docs/x.md')];
    const changed = [held(1, 'src/**', 'alice', 'exclusive'), held(2, 'lib/**', 'bob', 'exclusive')];
    const revised = reviseForChanges(requests, changed, NOW, 60_000, 32);
    expect(revised.kind === 'revised' && revised.conflicts.map((c) => c.held.pattern)).toEqual(['src/**']);
    const many = Array.from({ length: 40 }, (_, i) => held(i, '**', `o${i}`, 'exclusive'));
    expect(reviseForChanges(requests, many, NOW, 60_000, 32).kind).toBe('too_much');
  });

  it('ignores a changed lock that no longer binds (released, or of the requester)', () => {
    const released = { ...held(1, 'src/**', 'alice', 'exclusive'), released_at: NOW - 1, release_reason: 'released' };
    const mine = held(2, 'src/**', 'me', 'exclusive');
    const revised = reviseForChanges([request('src/a.ts')], [released, mine], NOW, 60_000, 32);
    expect(revised).toEqual({ kind: 'revised', conflicts: [] });
  });
});

describe('work limits', () => {
  it('refuses past each limit with TOO_COMPLEX naming it, and accepts at the limit', () => {
    for (const limit of ['patterns', 'comparisons'] as const) {
      expect(() => checkWorkLimit(limit, WORK_LIMITS[limit])).not.toThrow();
      let caught: any;
      try {
        checkWorkLimit(limit, WORK_LIMITS[limit] + 1);
      } catch (error) {
        caught = error;
      }
      expect(caught.code).toBe('TOO_COMPLEX');
      expect(caught.details).toEqual({ limit, value: WORK_LIMITS[limit] + 1, max: WORK_LIMITS[limit] });
      expect(caught.message).toContain(`limit ${limit} is ${WORK_LIMITS[limit]}`);
    }
  });
});
