import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createContext } from '../../src/coord/context';
import { dropName, takeName } from '../../src/coord/named';
import { DEFAULT_TTL_MS } from '../../src/core/lock';
import { T0, useTestStore } from '../support/store';

const store = useTestStore();
const take = (type: 'named' | 'claim', name: string, owner: string) => takeName(store.ctx, { type, name, owner, reason: null });

describe('named locks and claims', () => {
  it('are exclusive per name and type, with the default TTL of their type', async () => {
    const first = await take('named', 'deploy', 'alice');
    expect(first).toMatchObject({ granted: true, locks: [{ type: 'named', pattern: 'deploy', expires_at: T0 + DEFAULT_TTL_MS.named }] });
    expect(await take('named', 'deploy', 'bob')).toMatchObject({ granted: false, conflicts: [{ held: { owner: 'alice' } }] });
    expect((await take('named', 'Deploy', 'bob')).granted).toBe(true);
    expect(await take('claim', 'deploy', 'bob')).toMatchObject({ granted: true, locks: [{ type: 'claim', expires_at: T0 + DEFAULT_TTL_MS.claim }] });
  });

  it('are dropped by their owner, or by anyone with force', async () => {
    await take('named', 'deploy', 'alice');
    expect((await dropName(store.ctx, { type: 'named', name: 'deploy', owner: 'bob', force: false, reason: null })).released).toEqual([]);
    expect((await dropName(store.ctx, { type: 'named', name: 'deploy', owner: 'bob', force: true, reason: null })).released).toHaveLength(1);
    expect((await take('named', 'deploy', 'bob')).granted).toBe(true);
  });

  it('keep claims in the claim scope and named locks in the work tree’s', async () => {
    mkdirSync(join(store.dir, 'wt'));
    const worktree = await createContext({ cwd: store.dir, scopeFlag: 'wt', env: store.ctx.env, write: true, clock: () => store.now });
    try {
      const split = { ...worktree, claimScope: store.ctx.scope };
      await takeName(split, { type: 'claim', name: 'issue-1', owner: 'alice', reason: null });
      const named = await takeName(split, { type: 'named', name: 'deploy', owner: 'alice', reason: null });
      expect((await take('claim', 'issue-1', 'bob')).granted).toBe(false);
      expect(named.granted && named.locks[0]!.scope).toBe(worktree.scope);
      expect((await take('named', 'deploy', 'bob')).granted).toBe(true);
    } finally {
      worktree.db.close();
    }
  });
});
