import { describe, expect, it } from 'vitest';
import { release } from '../../src/coord/release';
import { transfer } from '../../src/coord/transfer';
import { verify } from '../../src/coord/verify';
import { grant, useTestStore } from '../support/store';

const store = useTestStore();

describe('verify', () => {
  it('passes a fence only while the lock is active with that token', async () => {
    const [lock] = await grant(store.ctx, 'alice', ['src/**'], { ttlMs: 10_000 });
    expect(await verify(store.ctx, lock!.id, lock!.token)).toMatchObject({ valid: true, lock: { id: lock!.id } });
    expect(await verify(store.ctx, lock!.id, lock!.token + 1)).toMatchObject({ valid: false, why: 'token_mismatch' });
    expect(await verify(store.ctx, 'zzzzzzzz', 1)).toEqual({ valid: false, why: 'not_found' });
    store.now += 10_000;
    expect(await verify(store.ctx, lock!.id, lock!.token)).toMatchObject({ valid: false, why: 'expired' });
  });

  it('fails the old token after a transfer and any token after a release', async () => {
    const [lock] = await grant(store.ctx, 'alice', ['src/**']);
    const [moved] = await transfer(store.ctx, { from: 'alice', to: 'bob', by: 'alice', force: false });
    expect(await verify(store.ctx, lock!.id, lock!.token)).toMatchObject({ valid: false, why: 'token_mismatch' });
    expect(await verify(store.ctx, lock!.id, moved!.token)).toMatchObject({ valid: true });
    await release(store.ctx, { ids: [lock!.id], owner: 'bob', all: false, force: false, reason: null });
    expect(await verify(store.ctx, lock!.id, moved!.token)).toMatchObject({ valid: false, why: 'released' });
  });
});
