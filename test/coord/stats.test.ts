import { describe, expect, it } from 'vitest';
import { reserveOnce } from '../../src/coord/reserve';
import { release } from '../../src/coord/release';
import { stats, topBy } from '../../src/coord/stats';
import { grant, useTestStore } from '../support/store';

const store = useTestStore();
const refuse = async (owner: string, patterns: string[]) => {
  const outcome = await reserveOnce(store.ctx, { type: 'file', patterns, owner, mode: 'exclusive', ttlMs: 60_000, reason: null });
  expect(outcome.granted).toBe(false);
};

describe('stats', () => {
  it('counts one denied try per refused reserve, however many locks blocked it', async () => {
    await grant(store.ctx, 'alice', ['src/a.ts']);
    await grant(store.ctx, 'dave', ['src/b.ts']);
    await refuse('bob', ['src/*.ts']); // blocked by alice and dave: two conflict events, one try
    store.now += 1;
    await refuse('bob', ['src/a.ts']);
    await grant(store.ctx, 'alice', ['src/a.ts']); // a renewal
    const figures = await stats(store.ctx);
    expect(figures).toMatchObject({ since: null, grants: 2, renewals: 1, conflicts: 3, denied_tries: 2, tries: 5, waits: 0, releases: 0 });
    expect(figures.conflict_rate).toBeCloseTo(2 / 5);
    expect(figures.most_contended_patterns).toEqual([
      { pattern: 'src/a.ts', conflicts: 2 },
      { pattern: 'src/b.ts', conflicts: 1 },
    ]);
    expect(figures.most_blocking_owners).toEqual([
      { owner: 'alice', conflicts: 2 },
      { owner: 'dave', conflicts: 1 },
    ]);
    expect(figures.most_blocked_owners).toEqual([{ owner: 'bob', conflicts: 3 }]);
  });

  it('counts releases, and only events since the window when one is given', async () => {
    const [lock] = await grant(store.ctx, 'alice', ['src/**']);
    store.now += 10_000;
    await release(store.ctx, { ids: [lock!.id], owner: 'alice', force: false, all: false, reason: null });
    expect(await stats(store.ctx)).toMatchObject({ grants: 1, releases: 1 });
    expect(await stats(store.ctx, 5_000)).toMatchObject({ since: store.now - 5_000, grants: 0, releases: 1, tries: 0, conflict_rate: 0 });
  });

  it('answers zeros on an empty log', async () => {
    expect(await stats(store.ctx)).toMatchObject({ tries: 0, grants: 0, denied_tries: 0, wait_rate: 0, conflict_rate: 0, most_contended_patterns: [] });
  });
});

describe('topBy', () => {
  const group = (heldPattern: string | null, owner: string, conflicts: number) => ({ heldPattern, heldOwner: 'h', owner, conflicts });

  it('sums groups by key, most first, ties by key with a missing key first, at most ten', () => {
    const groups = [group('b', 'x', 2), group('a', 'x', 1), group('a', 'y', 1), group(null, 'y', 2), group('c', 'x', 1)];
    expect(topBy(groups, (g) => g.heldPattern)).toEqual([
      [null, 2],
      ['a', 2],
      ['b', 2],
      ['c', 1],
    ]);
    const many = Array.from({ length: 12 }, (_, i) => group(`p${String(i).padStart(2, '0')}`, 'x', 1));
    expect(topBy(many, (g) => g.heldPattern).map(([key]) => key)).toEqual(many.slice(0, 10).map((g) => g.heldPattern));
  });
});
