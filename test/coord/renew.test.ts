import { describe, expect, it } from 'vitest';
import { release } from '../../src/coord/release';
import { renew } from '../../src/coord/renew';
import { grant, T0, useTestStore } from '../support/store';

const store = useTestStore();

describe('renew', () => {
  it('extends the owner’s active locks from now, by their own TTL or --ttl, keeping tokens', async () => {
    const [a, b] = await grant(store.ctx, 'alice', ['src/a.ts', 'src/b.ts'], { ttlMs: 10_000 });
    await grant(store.ctx, 'bob', ['docs/**']);
    store.now += 5_000;
    const all = await renew(store.ctx, { ids: [], owner: 'alice' });
    expect(all.locks.map((l) => [l.id, l.token, l.expires_at])).toEqual([
      [a!.id, a!.token, T0 + 15_000],
      [b!.id, b!.token, T0 + 15_000],
    ]);
    expect((await renew(store.ctx, { ids: [a!.id], owner: 'alice', ttlMs: 60_000 })).locks[0]!.expires_at).toBe(T0 + 65_000);
  });

  it('says why each named lock was not renewed, and never revives an expired one', async () => {
    const [mine] = await grant(store.ctx, 'alice', ['src/a.ts'], { ttlMs: 1_000 });
    const [theirs] = await grant(store.ctx, 'bob', ['src/b.ts']);
    const [gone] = await grant(store.ctx, 'alice', ['src/c.ts']);
    await release(store.ctx, { ids: [gone!.id], owner: 'alice', all: false, force: false, reason: null });
    store.now += 1_000;
    expect(await renew(store.ctx, { ids: [mine!.id, theirs!.id, gone!.id, 'zzzzzzzz'], owner: 'alice' })).toEqual({
      locks: [],
      not_renewed: [
        { id: mine!.id, why: 'not_active' },
        { id: theirs!.id, why: 'not_owner' },
        { id: gone!.id, why: 'not_active' },
        { id: 'zzzzzzzz', why: 'not_found' },
      ],
    });
  });
});
