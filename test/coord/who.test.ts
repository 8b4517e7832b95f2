import { describe, expect, it } from 'vitest';
import { heartbeat } from '../../src/coord/heartbeat';
import { takeName } from '../../src/coord/named';
import { who } from '../../src/coord/who';
import { grant, T0, useTestStore } from '../support/store';

const store = useTestStore();

describe('who', () => {
  it('groups active locks and claims by owner, most recently active first', async () => {
    await grant(store.ctx, 'alice', ['src/**']);
    store.now += 1_000;
    await grant(store.ctx, 'bob', ['docs/**']);
    await takeName(store.ctx, { type: 'claim', name: 'issue-7', owner: 'bob', reason: null });
    store.now += 1_000;
    await heartbeat(store.ctx, 'alice');
    const owners = await who(store.ctx, false);
    expect(owners.map((o) => [o.owner, o.last_active, o.locks.length, o.claims.length])).toEqual([
      ['alice', T0 + 2_000, 1, 0],
      ['bob', T0 + 1_000, 1, 1],
    ]);
  });

  it('leaves out owners whose locks have all lapsed', async () => {
    await grant(store.ctx, 'alice', ['src/**'], { ttlMs: 1_000 });
    store.now += 1_000;
    expect(await who(store.ctx, false)).toEqual([]);
  });
});
