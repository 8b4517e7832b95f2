// The fresh schema on real SQLite files (test/e2e/schema-create.test.ts: created once by racing processes):
// how locks get their ids (random, unique, found through their index) and how fencing tokens
// keep rising through grants, transfers and purges.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createContext, type CoordContext } from '../../src/coord/context';
import { reserveOnce } from '../../src/coord/reserve';
import { release } from '../../src/coord/release';
import { sweep } from '../../src/coord/sweep';
import { transfer } from '../../src/coord/transfer';
import { ID_PATTERN } from '../../src/core/ids';
import { allocateLockKey, getLock } from '../../src/store/locks';

const MINUTE = 60_000;

describe('a new database', () => {
  it('keeps the lock columns ic 0.1 had, so code reading either file reads the same names', async () => {
    await withContext(async (ctx) => {
      const columns = ((await ctx.db.prepare("SELECT name FROM pragma_table_info('locks')").all()) as { name: string }[]).map((c) => c.name);
      const v01 = ['id', 'token', 'type', 'scope', 'pattern', 'owner', 'mode', 'reason', 'created_at', 'expires_at', 'ttl_ms', 'released_at', 'release_reason'];
      expect(columns).toEqual(expect.arrayContaining(v01));
    });
  });
});

describe('lock ids', () => {
  it('are 8 characters of [0-9a-z], unique, and found through the UNIQUE index on id', async () => {
    await withContext(async (ctx, clock) => {
      const ids: string[] = [];
      for (let i = 0; i < 300; i++) {
        const outcome = await reserveOnce(ctx, { type: 'file', patterns: [`dir${i % 7}/f${i}.ts`], owner: `o${i % 5}`, mode: 'exclusive', ttlMs: MINUTE, reason: null });
        if (!outcome.granted) throw new Error('unexpected conflict');
        ids.push(outcome.locks[0]!.id);
        clock.now += 1;
      }
      expect(ids.filter((id) => !ID_PATTERN.test(id))).toEqual([]);
      expect(new Set(ids).size).toBe(ids.length);
      for (const id of ids.slice(0, 20)) expect((await getLock(ctx.db, id))?.id).toBe(id);
      const plan = ((await ctx.db.prepare("EXPLAIN QUERY PLAN SELECT * FROM locks WHERE id = 'abcdefgh'").all()) as { detail: string }[]).map((r) => r.detail).join('; ');
      expect(plan).toContain('locks_by_id');
      await expect(ctx.db.prepare('UPDATE locks SET id = ? WHERE id = ?').run(ids[0], ids[1])).rejects.toThrow(/UNIQUE/);
    });
  });

  it('are drawn again while the drawn id is taken', async () => {
    await withContext(async (ctx) => {
      const first = await reserveOnce(ctx, { type: 'file', patterns: ['a.ts'], owner: 'alice', mode: 'exclusive', ttlMs: MINUTE, reason: null });
      const taken = first.granted ? first.locks[0]!.id : '';
      const draws = [taken, taken, 'fresh000'];
      const key = await allocateLockKey(ctx.db, () => draws.shift()!);
      expect(key).toEqual({ seq: first.granted ? first.locks[0]!.token + 1 : 0, id: 'fresh000' }); // the next event's id
      expect(draws).toEqual([]); // both clashing draws were consumed
      expect((await allocateLockKey(ctx.db, () => 'other000')).id).toBe('other000');
    });
  });
});

describe('fencing tokens', () => {
  it('rise strictly across grants and transfers, and stay above every earlier token after purges', async () => {
    type Step = { kind: 'reserve'; file: number; owner: number } | { kind: 'transfer'; from: number } | { kind: 'release'; owner: number } | { kind: 'purge' } | { kind: 'wait'; minutes: number };
    const owners = ['alice', 'bob', 'carol'];
    const step: fc.Arbitrary<Step> = fc.oneof(
      fc.record({ kind: fc.constant('reserve' as const), file: fc.integer({ min: 0, max: 5 }), owner: fc.integer({ min: 0, max: 2 }) }),
      fc.record({ kind: fc.constant('transfer' as const), from: fc.integer({ min: 0, max: 2 }) }),
      fc.record({ kind: fc.constant('release' as const), owner: fc.integer({ min: 0, max: 2 }) }),
      fc.constant({ kind: 'purge' as const }),
      fc.record({ kind: fc.constant('wait' as const), minutes: fc.integer({ min: 1, max: 20 }) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 40 }), async (steps) => {
        await withContext(async (ctx, clock) => {
          let highest = 0;
          const tokenOf = new Map<string, number>();
          const take = (locks: { id: string; token: number }[]) => {
            for (const lock of locks) {
              if (tokenOf.get(lock.id) === lock.token) continue; // a renewal keeps its token
              expect(lock.token, `token ${lock.token} after ${highest}`).toBeGreaterThan(highest);
              highest = lock.token;
              tokenOf.set(lock.id, lock.token);
            }
          };
          for (const s of steps) {
            if (s.kind === 'reserve') {
              const outcome = await reserveOnce(ctx, { type: 'file', patterns: [`f${s.file}.ts`], owner: owners[s.owner]!, mode: 'exclusive', ttlMs: 10 * MINUTE, reason: null });
              if (outcome.granted) take(outcome.locks);
            } else if (s.kind === 'transfer') {
              try {
                const moved = await transfer(ctx, { from: owners[s.from]!, to: owners[(s.from + 1) % 3]!, by: owners[s.from]!, force: false });
                for (const lock of moved) tokenOf.delete(lock.id); // a transfer always assigns a new token
                take(moved);
              } catch (error) {
                if ((error as { code?: string }).code !== 'NOT_FOUND') throw error;
              }
            } else if (s.kind === 'release') {
              await release(ctx, { ids: [], owner: owners[s.owner]!, all: true, force: false, reason: null });
            } else if (s.kind === 'purge') {
              await sweep(ctx, { olderThanMs: 0, dryRun: false }); // deletes every released lock and all but the newest event
            } else clock.now += s.minutes * MINUTE;
          }
          // Whatever the log lost, the next grant's token is above every token handed out before it.
          const next = await reserveOnce(ctx, { type: 'named', patterns: ['after-all'], owner: 'zed', mode: 'exclusive', ttlMs: MINUTE, reason: null });
          expect(next.granted && next.locks[0]!.token).toBeGreaterThan(highest);
        });
      }),
      { numRuns: 60 },
    );
  });

  it('after a purge that leaves a single event, the next grant still gets a token above every earlier one', async () => {
    await withContext(async (ctx, clock) => {
      const grant = async (file: string) => {
        const outcome = await reserveOnce(ctx, { type: 'file', patterns: [file], owner: 'alice', mode: 'exclusive', ttlMs: MINUTE, reason: null });
        return outcome.granted ? outcome.locks[0]! : expect.fail('conflict');
      };
      await grant('a.ts');
      const moved = (await transfer(ctx, { from: 'alice', to: 'bob', by: 'alice', force: false }))[0]!;
      await release(ctx, { ids: [], owner: 'bob', all: true, force: false, reason: null });
      clock.now += MINUTE;
      const purged = await sweep(ctx, { olderThanMs: 0, dryRun: false });
      expect(purged.purged_locks).toBe(1);
      expect(await ctx.db.prepare('SELECT COUNT(*) AS n FROM locks').get()).toEqual({ n: 0 });
      expect(await ctx.db.prepare('SELECT COUNT(*) AS n FROM events').get()).toEqual({ n: 1 }); // the newest is kept
      expect((await grant('b.ts')).token).toBeGreaterThan(moved.token);
    });
  });
});

// A context on a new database file in a temporary directory, with a clock the test moves.
async function withContext(body: (ctx: CoordContext, clock: { now: number }) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'ic-schema-'));
  const clock = { now: Date.parse('2026-01-01T00:00:00.000Z') };
  const ctx = await createContext({ cwd: dir, env: { IC_DB: join(dir, 'test.db'), IC_LOCK_DELAY: '0s' }, write: true, clock: () => clock.now });
  try {
    await body(ctx, clock);
  } finally {
    ctx.db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
