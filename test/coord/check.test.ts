import { describe, expect, it } from 'vitest';
import { check } from '../../src/coord/check';
import { queryEvents } from '../../src/store/events';
import { grant, useTestStore } from '../support/store';

const store = useTestStore();
const ask = (owner: string, patterns: string[], mode: 'exclusive' | 'shared' = 'exclusive') => check(store.ctx, { type: 'file', patterns, owner, mode });

describe('check', () => {
  it('reports the locks a reserve would meet, and only those', async () => {
    const [held] = await grant(store.ctx, 'alice', ['src/**']);
    const [shared] = await grant(store.ctx, 'carol', ['docs/**'], { mode: 'shared' });
    expect((await ask('bob', ['src/a.ts', 'lib/x.ts'])).map((c) => [c.held.id, c.pattern, c.state])).toEqual([[held!.id, 'src/a.ts', 'active']]);
    expect(await ask('alice', ['src/a.ts'])).toEqual([]);
    expect((await ask('bob', ['docs/x.md'])).map((c) => c.held.id)).toEqual([shared!.id]);
    expect(await ask('bob', ['docs/x.md'], 'shared')).toEqual([]);
  });

  it('sees a lapsed lock inside the lock-delay, and nothing after it', async () => {
    await grant(store.ctx, 'alice', ['src/**'], { ttlMs: 1_000 });
    store.now += 1_000;
    expect((await ask('bob', ['src/a.ts'])).map((c) => c.state)).toEqual(['lock_delay']);
    store.now += store.ctx.lockDelayMs;
    expect(await ask('bob', ['src/a.ts'])).toEqual([]);
  });

  it('writes nothing, not even a conflict event', async () => {
    await grant(store.ctx, 'alice', ['src/**']);
    const before = (await queryEvents(store.ctx.db, { limit: 100 })).length;
    expect(await ask('bob', ['src/a.ts'])).toHaveLength(1);
    expect(await queryEvents(store.ctx.db, { limit: 100 })).toHaveLength(before);
  });
});
