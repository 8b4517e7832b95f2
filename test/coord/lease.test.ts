import { describe, expect, it } from 'vitest';
import { endLease, renewLease } from '../../src/coord/lease';
import { release } from '../../src/coord/release';
import { transfer } from '../../src/coord/transfer';
import { getLock } from '../../src/store/locks';
import { grant, T0, useTestStore } from '../support/store';

const store = useTestStore();
const lease = async (ttlMs = 10_000) => (await grant(store.ctx, 'alice/run-abcd1234', ['deploy'], { type: 'named', ttlMs }))[0]!;

describe('lock-run leases', () => {
  it('renew from now while held, and end with a release', async () => {
    const lock = await lease();
    store.now += 5_000;
    expect(await renewLease(store.ctx, lock, 10_000)).toEqual({ held: true, expiresAt: T0 + 15_000 });
    expect(await endLease(store.ctx, lock, 'done')).toEqual({ held: true, expiresAt: T0 + 15_000 });
    expect(await getLock(store.ctx.db, lock.id)).toMatchObject({ released_at: T0 + 5_000, release_reason: 'released' });
  });

  it('report an expired lease as lost, and mark it expired', async () => {
    const lock = await lease();
    store.now += 10_000;
    expect(await renewLease(store.ctx, lock, 10_000)).toEqual({ held: false, why: 'expired' });
    expect(await getLock(store.ctx.db, lock.id)).toMatchObject({ release_reason: 'expired' });
    expect(await endLease(store.ctx, lock, 'done')).toEqual({ held: false, why: 'expired' });
  });

  it('report a released or transferred lease as lost', async () => {
    const released = await lease();
    await release(store.ctx, { ids: [released.id], owner: 'carol', all: false, force: true, reason: null });
    expect(await renewLease(store.ctx, released, 10_000)).toEqual({ held: false, why: 'released' });
    const moved = await lease();
    await transfer(store.ctx, { from: moved.owner, to: 'bob', by: 'carol', force: true });
    expect(await renewLease(store.ctx, moved, 10_000)).toEqual({ held: false, why: 'not_owner' });
    expect(await endLease(store.ctx, { ...moved, id: 'zzzzzzzz' }, 'done')).toEqual({ held: false, why: 'not_found' });
  });
});
