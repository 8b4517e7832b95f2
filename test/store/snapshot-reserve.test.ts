// The optimistic path of reserve (coord/reserve.ts, decideFromSnapshot): a decision read from a snapshot,
// then committed under the write lock only if nothing that changed since blocks it. Each case commits a
// real write from a second connection between the snapshot and the commit.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createContext, type CoordContext } from '../../src/coord/context';
import { commitSnapshot, reserveOnce, SNAPSHOT_STALE, takeSnapshot, toRequests, type ReserveInput } from '../../src/coord/reserve';
import { release } from '../../src/coord/release';
import { sweep } from '../../src/coord/sweep';
import { transfer } from '../../src/coord/transfer';
import { listLocks } from '../../src/store/locks';
import { findGroupConflicts } from '../../src/core/conflict';
import { testDatabase } from '../support/store';

let dir: string;
let now: number;
let mine: CoordContext; // the call under test
let other: CoordContext; // another process, on its own connection
let database: ReturnType<typeof testDatabase>;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ic-snapshot-'));
  now = Date.parse('2026-01-01T00:00:00.000Z');
  database = testDatabase(dir); // SQLite, or PostgreSQL in the conformance run (test/postgres/conformance.mts)
  const open = () => createContext({ cwd: dir, env: database.env, write: true, clock: () => now });
  mine = await open();
  other = await open();
});
afterEach(() => {
  mine.db.close();
  other.db.close();
  rmSync(dir, { recursive: true, force: true });
  database.drop();
});

const input = (owner: string, patterns: string[], mode: 'exclusive' | 'shared' = 'exclusive'): ReserveInput => ({ type: 'file', patterns, owner, mode, ttlMs: 60_000, reason: null });
const reserve = (ctx: CoordContext, owner: string, patterns: string[], mode: 'exclusive' | 'shared' = 'exclusive') => reserveOnce(ctx, input(owner, patterns, mode));
const first = { first: true, waitedMs: 0 };

// Snapshot, let `between` write on the other connection, then commit.
async function raced(owner: string, patterns: string[], between: () => Promise<unknown>, mode: 'exclusive' | 'shared' = 'exclusive') {
  const request = input(owner, patterns, mode);
  const snapshot = await takeSnapshot(mine, toRequests(mine, request));
  await between();
  now += 5;
  return commitSnapshot(mine, request, snapshot, first);
}

// No two active locks of different owners, one exclusive, on overlapping patterns.
async function expectNoDoubleGrant(): Promise<void> {
  const active = await listLocks(mine.db, { activeAt: now });
  for (const lock of active) {
    const others = active.filter((o) => o.id !== lock.id);
    const request = { type: lock.type, scope: lock.scope, pattern: lock.pattern, owner: lock.owner, mode: lock.mode };
    expect(findGroupConflicts([{ request, candidates: others }], now, 0)).toEqual([]);
  }
}

describe('reserve from a snapshot', () => {
  it('refuses when another owner was granted an overlapping lock after the snapshot', async () => {
    const outcome = await raced('bob', ['src/**', 'docs/**'], async () => expect((await reserve(other, 'alice', ['src/a.ts'])).granted).toBe(true));
    expect(outcome !== SNAPSHOT_STALE && !outcome.granted && outcome.conflicts.map((c) => [c.pattern, c.held.owner])).toEqual([['src/**', 'alice']]);
    expect(await listLocks(mine.db, { owner: 'bob' })).toEqual([]);
    await expectNoDoubleGrant();
  });

  it('refuses when the requester’s own lock was transferred to another owner after the snapshot', async () => {
    expect((await reserve(mine, 'bob', ['src/a.ts'])).granted).toBe(true);
    const outcome = await raced('bob', ['src/**', 'lib/*.ts'], () => transfer(other, { from: 'bob', to: 'alice', by: 'bob', force: false }));
    // The transfer's event names bob's lock, so the commit sees it changed hands; either way, no grant.
    expect(outcome === SNAPSHOT_STALE || !outcome.granted).toBe(true);
    const fresh = await reserve(mine, 'bob', ['src/**', 'lib/*.ts']);
    expect(!fresh.granted && fresh.conflicts[0]!.held.owner).toBe('alice');
    await expectNoDoubleGrant();
  });

  it('refuses when a shared lock was upgraded to exclusive after the snapshot', async () => {
    expect((await reserve(mine, 'alice', ['src/**'], 'shared')).granted).toBe(true);
    const outcome = await raced('bob', ['src/a.ts', 'src/*.md'], async () => expect((await reserve(other, 'alice', ['src/**'])).granted).toBe(true), 'shared');
    expect(outcome !== SNAPSHOT_STALE && !outcome.granted && outcome.conflicts[0]!.held.mode).toBe('exclusive');
    await expectNoDoubleGrant();
  });

  it('grants when what changed cannot touch the request', async () => {
    const outcome = await raced('bob', ['src/**', 'docs/**'], async () => expect((await reserve(other, 'alice', ['lib/x.ts', 'test/**'])).granted).toBe(true));
    expect(outcome !== SNAPSHOT_STALE && outcome.granted && outcome.locks.map((l) => l.pattern)).toEqual(['src/**', 'docs/**']);
    await expectNoDoubleGrant();
  });

  it('takes a new lock, not the released row, when its own lock was released after the snapshot', async () => {
    const held = await reserve(mine, 'bob', ['src/a.ts']);
    const oldId = held.granted ? held.locks[0]!.id : '';
    const outcome = await raced('bob', ['src/a.ts', 'src/*.md'], () => release(other, { ids: [oldId], owner: 'bob', all: false, force: false, reason: null }));
    expect(outcome !== SNAPSHOT_STALE && outcome.granted).toBe(true);
    const active = (await listLocks(mine.db, { owner: 'bob', activeAt: now })).map((l) => l.pattern).sort();
    expect(active).toEqual(['src/*.md', 'src/a.ts']);
    expect((await listLocks(mine.db, { owner: 'bob', activeAt: now })).some((l) => l.id === oldId)).toBe(false);
  });

  it('redoes the decision when events were purged after the snapshot, or too many locks changed', async () => {
    expect((await reserve(mine, 'carol', ['old.ts'])).granted).toBe(true);
    await release(mine, { ids: [], owner: 'carol', all: true, force: false, reason: null });
    const purged = await raced('bob', ['src/**', 'docs/**'], async () => {
      expect((await reserve(other, 'alice', ['lib/x.ts'])).granted).toBe(true);
      now += 1_000;
      await sweep(other, { olderThanMs: 0, dryRun: false });
    });
    expect(purged).toBe(SNAPSHOT_STALE);
    const crowded = await raced('bob', ['src/**', 'docs/**'], async () =>
      expect(
        (
          await reserve(
            other,
            'carol',
            Array.from({ length: 300 }, (_, i) => `z${i}.ts`),
          )
        ).granted,
      ).toBe(true),
    );
    expect(crowded).toBe(SNAPSHOT_STALE);
    expect(await listLocks(mine.db, { owner: 'bob' })).toEqual([]);
    expect((await reserve(mine, 'bob', ['src/**', 'docs/**'])).granted).toBe(true); // a fresh decision goes through
  });

  it('grants when every lock that blocked in the snapshot was released or handed to the requester since', async () => {
    expect((await reserve(mine, 'alice', ['src/a.ts'])).granted).toBe(true);
    expect((await reserve(mine, 'carol', ['docs/x.md'])).granted).toBe(true);
    const outcome = await raced('bob', ['src/**', 'docs/**'], async () => {
      await release(other, { ids: [], owner: 'alice', all: true, force: false, reason: null });
      await transfer(other, { from: 'carol', to: 'bob', by: 'carol', force: false });
    });
    // Revised from the events since the snapshot (or redone): either way the decision grants.
    if (outcome === SNAPSHOT_STALE) expect((await reserve(mine, 'bob', ['src/**', 'docs/**'])).granted).toBe(true);
    else expect(outcome.granted).toBe(true);
    await expectNoDoubleGrant();
  });

  it('reports a conflict still holding at commit time from its current row, and records it then', async () => {
    expect((await reserve(mine, 'alice', ['src/a.ts', 'src/b.ts'])).granted).toBe(true);
    const outcome = await raced('bob', ['src/**', 'docs/**'], async () => {
      await release(other, { ids: [], owner: 'alice', pattern: 'src/a.ts', all: false, force: false, reason: null });
      now += 1_000;
      expect((await reserve(other, 'alice', ['src/b.ts'], 'exclusive')).granted).toBe(true); // renewed: a later expiry
    });
    expect(outcome !== SNAPSHOT_STALE && !outcome.granted).toBe(true);
    const conflicts = outcome !== SNAPSHOT_STALE && !outcome.granted ? outcome.conflicts : [];
    expect(conflicts.map((c) => c.held.pattern)).toEqual(['src/b.ts']);
    expect(conflicts[0]!.held.expires_at).toBe(now - 5 + 60_000);
    const recorded = await mine.db.prepare("SELECT pattern, lock_id FROM events WHERE type = 'conflict' AND owner = 'bob'").all();
    expect(recorded).toEqual([{ pattern: 'src/**', lock_id: conflicts[0]!.held.id }]);
  });
});
