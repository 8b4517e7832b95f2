import { describe, expect, it } from 'vitest';
import { release } from '../../src/coord/release';
import { sweep } from '../../src/coord/sweep';
import { queryEvents } from '../../src/store/events';
import { listLocks } from '../../src/store/locks';
import { grant, useTestStore } from '../support/store';

const store = useTestStore();
const types = async () => (await queryEvents(store.ctx.db, { limit: 100 })).map((e) => e.type);

describe('sweep', () => {
  it('marks lapsed locks expired once, with one event each', async () => {
    await grant(store.ctx, 'alice', ['src/a.ts', 'src/b.ts'], { ttlMs: 1_000 });
    await grant(store.ctx, 'bob', ['docs/**']);
    store.now += 1_000;
    expect(await sweep(store.ctx, { dryRun: false })).toEqual({ expired: 2, purged_locks: 0, purged_events: 0, dry_run: false, index_files: 0, dropped_pins: 0, kept_pins: 0, displaced_dirs: 0 });
    expect((await sweep(store.ctx, { dryRun: false })).expired).toBe(0);
    expect((await types()).filter((t) => t === 'expired')).toHaveLength(2);
  });

  it('purges released locks and old events but keeps the newest event', async () => {
    const [lock] = await grant(store.ctx, 'alice', ['src/a.ts']);
    await release(store.ctx, { ids: [lock!.id], owner: 'alice', all: false, force: false, reason: null });
    store.now += 60_000;
    expect(await sweep(store.ctx, { olderThanMs: 30_000, dryRun: false })).toMatchObject({ purged_locks: 1, purged_events: 1 });
    expect(await listLocks(store.ctx.db, {})).toEqual([]);
    expect(await types()).toEqual(['released']);
  });

  it('counts in a dry run exactly what the real run then does, and changes nothing', async () => {
    await grant(store.ctx, 'alice', ['src/a.ts'], { ttlMs: 1_000 });
    store.now += 120_000;
    const before = await types();
    const dry = await sweep(store.ctx, { olderThanMs: 60_000, dryRun: true });
    expect(await types()).toEqual(before);
    expect({ ...(await sweep(store.ctx, { olderThanMs: 60_000, dryRun: false })), dry_run: true }).toEqual(dry);
  });
});
