import { describe, expect, it } from 'vitest';
import { release } from '../../src/coord/release';
import { queryEvents } from '../../src/store/events';
import { grant, useTestStore } from '../support/store';

const store = useTestStore();
const base = { ids: [] as string[], all: false, force: false, reason: null };

describe('release', () => {
  it('releases by id, by pattern and --all, only the owner’s own', async () => {
    const [a, b, c] = await grant(store.ctx, 'alice', ['src/a.ts', 'src/b.ts', 'src/c.ts']);
    const [theirs] = await grant(store.ctx, 'bob', ['docs/**']);
    expect(await release(store.ctx, { ...base, ids: [a!.id, theirs!.id], owner: 'alice' })).toMatchObject({
      released: [{ id: a!.id }],
      not_released: [{ id: theirs!.id, why: 'not_owner' }],
    });
    expect((await release(store.ctx, { ...base, pattern: 'src/b.ts', owner: 'alice' })).released.map((l) => l.id)).toEqual([b!.id]);
    expect((await release(store.ctx, { ...base, all: true, owner: 'alice' })).released.map((l) => l.id)).toEqual([c!.id]);
    expect((await release(store.ctx, { ...base, ids: [a!.id], owner: 'alice' })).not_released).toEqual([{ id: a!.id, why: 'already_released' }]);
  });

  it('with --force releases another owner’s lock and records it as force_released by the caller', async () => {
    const [theirs] = await grant(store.ctx, 'bob', ['docs/**']);
    expect((await release(store.ctx, { ...base, ids: [theirs!.id], owner: 'alice', force: true })).released).toHaveLength(1);
    const event = (await queryEvents(store.ctx.db, { limit: 10 })).find((e) => e.type === 'force_released');
    expect(event).toMatchObject({ lock_id: theirs!.id, owner: 'bob' });
    expect(JSON.parse(event!.detail!)).toMatchObject({ by: 'alice' });
  });

  it('refuses to guess: no target is USAGE, no owner is USAGE, and nothing changes', async () => {
    await grant(store.ctx, 'alice', ['src/**']);
    await expect(release(store.ctx, { ...base, owner: 'alice' })).rejects.toThrow(/say what to release/);
    await expect(release(store.ctx, { ...base, all: true, owner: undefined })).rejects.toThrow();
    expect((await queryEvents(store.ctx.db, { limit: 10 })).map((e) => e.type)).toEqual(['reserved']);
  });

  it('names the active locks a pattern overlaps when nothing is on exactly it', async () => {
    const [held] = await grant(store.ctx, 'alice', ['src/**']);
    expect(await release(store.ctx, { ...base, pattern: 'src/a.ts', type: 'file', owner: 'alice' })).toMatchObject({ released: [], near: [{ id: held!.id }] });
  });
});
