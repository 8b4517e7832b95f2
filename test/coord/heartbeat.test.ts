import { describe, expect, it } from 'vitest';
import { heartbeat, HEARTBEAT_SKIP_MS } from '../../src/coord/heartbeat';
import { takeName } from '../../src/coord/named';
import { runOwner } from '../../src/core/owner';
import { getLock } from '../../src/store/locks';
import { grant, T0, useTestStore } from '../support/store';

const store = useTestStore();
const expiry = async (id: string) => (await getLock(store.ctx.db, id))!.expires_at;

describe('heartbeat', () => {
  it('renews the owner’s active locks and claims by their own TTL, and nobody else’s', async () => {
    const [file] = await grant(store.ctx, 'alice', ['src/**'], { ttlMs: 60_000 });
    const claim = await takeName(store.ctx, { type: 'claim', name: 'issue-1', owner: 'alice', ttlMs: 120_000, reason: null });
    const [theirs] = await grant(store.ctx, 'bob', ['docs/**'], { ttlMs: 60_000 });
    store.now += 30_000;
    expect(await heartbeat(store.ctx, 'alice')).toEqual({ renewed: 2, skipped: false, last_seen: T0 + 30_000 });
    expect(await expiry(file!.id)).toBe(T0 + 90_000);
    expect(claim.granted && (await expiry(claim.locks[0]!.id))).toBe(T0 + 150_000);
    expect(await expiry(theirs!.id)).toBe(T0 + 60_000);
  });

  it('only reads within the skip window after the last one', async () => {
    await grant(store.ctx, 'alice', ['src/**']);
    await heartbeat(store.ctx, 'alice');
    store.now += HEARTBEAT_SKIP_MS - 1;
    expect(await heartbeat(store.ctx, 'alice')).toEqual({ renewed: 0, skipped: true, last_seen: T0 });
    store.now += 1;
    expect(await heartbeat(store.ctx, 'alice')).toMatchObject({ renewed: 1, skipped: false });
  });

  it('leaves the leases of the owner’s lock runs alone', async () => {
    const [lease] = await grant(store.ctx, runOwner('alice', 'abcd1234'), ['deploy'], { type: 'named', ttlMs: 10_000 });
    store.now += 5_000;
    expect((await heartbeat(store.ctx, 'alice')).renewed).toBe(0);
    expect(await expiry(lease!.id)).toBe(T0 + 10_000);
  });
});
