import { describe, expect, it } from 'vitest';
import { endLease, renewLease } from '../../src/coord/lease';
import { release } from '../../src/coord/release';
import { reserveOnce } from '../../src/coord/reserve';
import { takeName } from '../../src/coord/named';
import { transfer } from '../../src/coord/transfer';
import { queryEvents } from '../../src/store/events';
import { listLocks } from '../../src/store/locks';
import type { Lock } from '../../src/core/lock';
import { useTestStore } from '../support/store';

const store = useTestStore();

const granted = (outcome: Awaited<ReturnType<typeof reserveOnce>>): Lock[] => {
  if (!outcome.granted) throw new Error('expected a grant');
  return outcome.locks;
};
const files = async (owner: string, patterns: string[]) => granted(await reserveOnce(store.ctx, { type: 'file', patterns, owner, mode: 'exclusive', ttlMs: 60_000, reason: null }));
const name = async (type: 'named' | 'claim', pattern: string, owner: string, ttlMs = 60_000) => granted(await takeName(store.ctx, { type, name: pattern, owner, ttlMs, reason: null }));
const events = async (type: string) =>
  (await queryEvents(store.ctx.db, { afterId: 0, limit: 1000 })).filter((e) => e.type === type).map((e) => ({ ...e, detail: typeof e.detail === 'string' ? JSON.parse(e.detail) : e.detail }));

describe('transfer', () => {
  it('is done by the --from owner, or with --force by anyone, and every event records by', async () => {
    await files('bob', ['src/**']);
    await expect(transfer(store.ctx, { from: 'bob', to: 'dave', by: 'carol', force: false })).rejects.toThrow(/only bob may transfer/);
    expect(await listLocks(store.ctx.db, { owner: 'bob', activeAt: store.now })).toHaveLength(1);
    await transfer(store.ctx, { from: 'bob', to: 'dave', by: 'carol', force: true });
    await transfer(store.ctx, { from: 'dave', to: 'erin', by: 'dave', force: false });
    expect((await events('transferred')).map((e) => e.detail)).toMatchObject([
      { from: 'bob', by: 'carol', forced: true },
      { from: 'dave', by: 'dave', forced: false },
    ]);
  });
});

describe('release', () => {
  it('with all and file types keeps claims and named locks', async () => {
    await files('alice', ['a.ts']);
    await name('claim', 'issue-1', 'alice');
    await name('named', 'deploy', 'alice');
    const result = await release(store.ctx, { ids: [], owner: 'alice', all: true, allTypes: ['file'], force: false, reason: null });
    expect(result.released.map((l) => l.type)).toEqual(['file']);
    expect((await listLocks(store.ctx.db, { owner: 'alice', activeAt: store.now })).map((l) => l.type).sort()).toEqual(['claim', 'named']);
    const rest = await release(store.ctx, { ids: [], owner: 'alice', all: true, force: false, reason: null });
    expect(rest.released.map((l) => l.type).sort()).toEqual(['claim', 'named']);
  });

  it('lists the overlapping locks when nothing is on exactly the pattern', async () => {
    const [held] = await files('alice', ['src/**']);
    await files('bob', ['docs/**']);
    const result = await release(store.ctx, { ids: [], owner: 'alice', pattern: 'src/*.ts', type: 'file', all: false, force: false, reason: null });
    expect(result.released).toEqual([]);
    expect(result.near?.map((l) => l.id)).toEqual([held!.id]);
  });

  it('needs an owner even with --force, and records it as by', async () => {
    const [held] = await files('alice', ['a.ts']);
    await expect(release(store.ctx, { ids: [held!.id], owner: undefined, all: false, force: true, reason: null })).rejects.toThrow(/owner is required/);
    await release(store.ctx, { ids: [held!.id], owner: 'bob', all: false, force: true, reason: 'stuck' });
    expect((await events('force_released')).map((e) => e.detail)).toEqual([{ by: 'bob' }]);
  });
});

describe('run leases', () => {
  const RUN = 'alice/run-k3j9x0ab';

  it('renew until the clock passes their expiry, after which they are lost even if nobody took them', async () => {
    const [lease] = await name('named', 'tests', RUN, 15_000);
    store.now += 5_000;
    expect(await renewLease(store.ctx, lease!, 15_000)).toEqual({ held: true, expiresAt: store.now + 15_000 });
    store.now += 15_000; // ic was stopped past the lease
    expect(await renewLease(store.ctx, lease!, 15_000)).toEqual({ held: false, why: 'expired' });
    expect(await endLease(store.ctx, lease!, 'command ended')).toEqual({ held: false, why: 'expired' });
    expect(await events('expired')).toHaveLength(1);
  });

  it('are lost when someone forces them free or takes them over', async () => {
    const [lease] = await name('named', 'tests', RUN, 15_000);
    await release(store.ctx, { ids: [lease!.id], owner: 'bob', all: false, force: true, reason: null });
    expect(await endLease(store.ctx, lease!, 'command ended')).toEqual({ held: false, why: 'released' });
    const [second] = await name('named', 'tests', RUN, 15_000);
    await transfer(store.ctx, { from: RUN, to: 'bob', by: 'bob', force: true });
    expect(await renewLease(store.ctx, second!, 15_000)).toEqual({ held: false, why: 'not_owner' });
  });

  it('end with a release while held', async () => {
    const [lease] = await name('named', 'tests', RUN, 15_000);
    expect((await endLease(store.ctx, lease!, 'command ended')).held).toBe(true);
    expect((await events('released')).map((e) => e.reason)).toEqual(['command ended']);
  });

  it('are free as soon as they lapse: lock-delay is for owners that may still be writing', async () => {
    await name('named', 'tests', RUN, 15_000);
    await name('named', 'deploy', 'alice', 15_000);
    store.now += 15_000;
    expect((await takeName(store.ctx, { type: 'named', name: 'tests', owner: 'bob', ttlMs: 60_000, reason: null })).granted).toBe(true);
    const deploy = await takeName(store.ctx, { type: 'named', name: 'deploy', owner: 'bob', ttlMs: 60_000, reason: null });
    expect(!deploy.granted && deploy.conflicts[0]!.state).toBe('lock_delay');
  });
});
