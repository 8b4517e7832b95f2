import { describe, expect, it } from 'vitest';
import { readEvents } from '../../src/coord/events';
import { sweep } from '../../src/coord/sweep';
import { grant, T0, useTestStore } from '../support/store';

const store = useTestStore();

describe('readEvents', () => {
  it('prints times as RFC 3339, in the detail too', async () => {
    await grant(store.ctx, 'alice', ['src/a.ts'], { ttlMs: 1_000 });
    store.now += 2_000;
    await sweep(store.ctx, { dryRun: false });
    const [reserved, expired] = await readEvents(store.ctx, { limit: 10 });
    expect(reserved).toMatchObject({ type: 'reserved', owner: 'alice', pattern: 'src/a.ts', created_at: new Date(T0).toISOString() });
    expect(expired).toMatchObject({ type: 'expired', detail: { expired_at: new Date(T0 + 1_000).toISOString() } });
  });

  it('filters by id and window, and limits', async () => {
    await grant(store.ctx, 'alice', ['a']);
    store.now += 10_000;
    await grant(store.ctx, 'alice', ['b']);
    await grant(store.ctx, 'alice', ['c']);
    expect((await readEvents(store.ctx, { limit: 10, afterId: 1 })).map((e) => e.pattern)).toEqual(['b', 'c']);
    expect((await readEvents(store.ctx, { limit: 10, sinceMs: 5_000 })).map((e) => e.pattern)).toEqual(['b', 'c']);
    expect((await readEvents(store.ctx, { limit: 1 })).map((e) => e.pattern)).toEqual(['a']);
  });

  it('gives a consumer each event once, across calls', async () => {
    await grant(store.ctx, 'alice', ['a', 'b', 'c']);
    expect((await readEvents(store.ctx, { limit: 2, consumer: 'bot' })).map((e) => e.pattern)).toEqual(['a', 'b']);
    expect((await readEvents(store.ctx, { limit: 2, consumer: 'bot' })).map((e) => e.pattern)).toEqual(['c']);
    expect(await readEvents(store.ctx, { limit: 2, consumer: 'bot' })).toEqual([]);
    expect(await readEvents(store.ctx, { limit: 5, consumer: 'other' })).toHaveLength(3);
  });
});
