import { describe, expect, it } from 'vitest';
import { reserveOnce } from '../../src/coord/reserve';
import { release } from '../../src/coord/release';
import { sweep } from '../../src/coord/sweep';
import { check } from '../../src/coord/check';
import { findDoubleGrants } from '../support/replay';
import { useTestStore } from '../support/store';

const store = useTestStore();

const file = (owner: string, patterns: string[], ttlMs = 60_000) => reserveOnce(store.ctx, { type: 'file', patterns, owner, mode: 'exclusive', ttlMs, reason: null });

describe('store: reserve with an injected clock', () => {
  it('judges expiry by the clock of the transaction', async () => {
    expect((await file('alice', ['src/**'])).granted).toBe(true);
    expect((await file('bob', ['src/a.ts'])).granted).toBe(false);
    store.now += 60_000; // exactly at expires_at: no longer active, but in lock-delay
    const delayed = await file('bob', ['src/a.ts']);
    expect(delayed.granted).toBe(false);
    expect(!delayed.granted && delayed.conflicts[0]!.state).toBe('lock_delay');
    store.now += store.ctx.lockDelayMs;
    expect((await file('bob', ['src/a.ts'])).granted).toBe(true);
  });

  it('leaves the database exactly as it was when a reserve is refused', async () => {
    await file('alice', ['src/a.ts']);
    const count = async () => ((await store.ctx.db.prepare('SELECT COUNT(*) AS n FROM locks').get()) as { n: number }).n;
    const before = await count();
    expect((await file('bob', ['docs/**', 'src/*'])).granted).toBe(false);
    expect(await count()).toBe(before);
  });

  it('uses the literal-base prefilter without losing conflicts in other bases', async () => {
    await file('alice', ['packages/web/src/**']);
    await file('alice', ['**/*.md']);
    expect(await check(store.ctx, { type: 'file', patterns: ['packages/web/src/x.ts'], owner: 'bob', mode: 'exclusive' })).toHaveLength(1);
    expect((await check(store.ctx, { type: 'file', patterns: ['packages/**'], owner: 'bob', mode: 'exclusive' })).map((c) => c.held.pattern).sort()).toEqual(['**/*.md', 'packages/web/src/**']);
    expect(await check(store.ctx, { type: 'file', patterns: ['packages/api/x.ts'], owner: 'bob', mode: 'exclusive' })).toHaveLength(0);
    expect(await check(store.ctx, { type: 'file', patterns: ['packages'], owner: 'bob', mode: 'exclusive' })).toHaveLength(0);
  });

  it('writes one expired event per lock across repeated sweeps', async () => {
    await file('alice', ['a', 'b']);
    store.now += 120_000;
    expect((await sweep(store.ctx, { dryRun: false })).expired).toBe(2);
    expect((await sweep(store.ctx, { dryRun: false })).expired).toBe(0);
    const n = ((await store.ctx.db.prepare("SELECT COUNT(*) AS n FROM events WHERE type = 'expired'").get()) as { n: number }).n;
    expect(n).toBe(2);
  });

  it('release by id checks the owner', async () => {
    const granted = await file('alice', ['a']);
    const id = granted.granted ? granted.locks[0]!.id : '';
    expect((await release(store.ctx, { ids: [id], owner: 'bob', all: false, force: false, reason: null })).not_released).toEqual([{ id, why: 'not_owner', owner: 'alice' }]);
    expect((await release(store.ctx, { ids: [id], owner: 'alice', all: false, force: false, reason: null })).released).toHaveLength(1);
  });
});

describe('the double-grant checker', () => {
  it('flags two overlapping exclusive grants and accepts a release in between', () => {
    const ev = (id: number, type: string, lock: string, owner: string, pattern: string) => ({ id, type, lock_id: lock, scope: '/', owner, pattern, detail: null });
    const modes = new Map([
      ['l1', 'exclusive'],
      ['l2', 'exclusive'],
    ]);
    expect(findDoubleGrants([ev(1, 'reserved', 'l1', 'a', 'src/**'), ev(2, 'reserved', 'l2', 'b', 'src/x')], modes)).toHaveLength(1);
    expect(findDoubleGrants([ev(1, 'reserved', 'l1', 'a', 'src/**'), ev(2, 'released', 'l1', 'a', 'src/**'), ev(3, 'reserved', 'l2', 'b', 'src/x')], modes)).toEqual([]);
  });
});
