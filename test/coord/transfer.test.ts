import { describe, expect, it } from 'vitest';
import { transfer } from '../../src/coord/transfer';
import { queryEvents } from '../../src/store/events';
import { getLock } from '../../src/store/locks';
import { grant, useTestStore } from '../support/store';

const store = useTestStore();

describe('transfer', () => {
  it('moves the active locks (or those on the given patterns) with new tokens that are event ids', async () => {
    const [a, b] = await grant(store.ctx, 'alice', ['src/a.ts', 'src/b.ts']);
    const moved = await transfer(store.ctx, { from: 'alice', to: 'bob', by: 'alice', force: false, only: { file: 'src/b.ts' } });
    expect(moved.map((l) => [l.id, l.owner])).toEqual([[b!.id, 'bob']]);
    const event = (await queryEvents(store.ctx.db, { limit: 10 })).find((e) => e.type === 'transferred')!;
    expect(moved[0]!.token).toBe(event.id);
    expect(moved[0]!.token).toBeGreaterThan(b!.token);
    expect(JSON.parse(event.detail!)).toMatchObject({ from: 'alice', by: 'alice', forced: false, previous_token: b!.token });
    expect((await getLock(store.ctx.db, a!.id))!.owner).toBe('alice');
  });

  it('refuses a transfer to the same owner, and one of nothing, changing nothing', async () => {
    await grant(store.ctx, 'alice', ['src/a.ts']);
    await expect(transfer(store.ctx, { from: 'alice', to: 'alice', by: 'alice', force: false })).rejects.toThrow(/same owner/);
    await expect(transfer(store.ctx, { from: 'carol', to: 'bob', by: 'carol', force: false })).rejects.toThrow(/holds no active locks/);
    expect((await queryEvents(store.ctx.db, { limit: 10 })).map((e) => e.type)).toEqual(['reserved']);
  });
});
