import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createContext } from '../../src/coord/context';
import { list } from '../../src/coord/list';
import { release } from '../../src/coord/release';
import { grant, useTestStore } from '../support/store';

const store = useTestStore();
const ids = (locks: { id: string }[]) => locks.map((l) => l.id);
const all = { active: false, allScopes: false };

describe('list', () => {
  it('filters by active, owner, type and expiring window, oldest grant first', async () => {
    const [a] = await grant(store.ctx, 'alice', ['src/**'], { ttlMs: 10_000 });
    const [b] = await grant(store.ctx, 'bob', ['docs/**'], { ttlMs: 60_000 });
    const [n] = await grant(store.ctx, 'bob', ['deploy'], { type: 'named' });
    const [gone] = await grant(store.ctx, 'alice', ['lib/**']);
    await release(store.ctx, { ids: [gone!.id], owner: 'alice', all: false, force: false, reason: null });
    expect(ids(await list(store.ctx, all))).toEqual(ids([a!, b!, n!, gone!]));
    expect(ids(await list(store.ctx, { ...all, active: true }))).toEqual(ids([a!, b!, n!]));
    expect(ids(await list(store.ctx, { ...all, owner: 'bob', type: 'file' }))).toEqual(ids([b!]));
    expect(ids(await list(store.ctx, { ...all, expiringMs: 30_000 }))).toEqual(ids([a!]));
  });

  it('shows one scope, or every scope with allScopes', async () => {
    const [here] = await grant(store.ctx, 'alice', ['src/**']);
    mkdirSync(join(store.dir, 'other'));
    const other = await createContext({ cwd: store.dir, scopeFlag: 'other', env: store.ctx.env, write: true, clock: () => store.now });
    try {
      const [there] = await grant(other, 'alice', ['src/**']);
      expect(ids(await list(store.ctx, all))).toEqual(ids([here!]));
      expect(ids(await list(store.ctx, { ...all, allScopes: true }))).toEqual(ids([here!, there!]));
    } finally {
      other.db.close();
    }
  });
});
