import { describe, expect, it } from 'vitest';
import { recordActivity } from '../../src/coord/sessions';
import { SHELL_GRACE_MS } from '../../src/coord/liveness-times';
import { getLock } from '../../src/store/locks';
import type { ClientProcess } from '../../src/store/sessions';
import { grant, T0, useTestStore } from '../support/store';

const store = useTestStore();
const client: ClientProcess = { host: 'test-host', boot: 'boot-1', pid: 4242, start: '777' };
const shell = (shellTimeoutMs: number) => recordActivity(store.ctx, { base: 'claude-s1', agent: 'claude', client, shellTimeoutMs });

describe('a shell command’s lock cover', () => {
  it('writes only when one of the session’s locks would lapse before the command may end', async () => {
    const [lock] = await grant(store.ctx, 'claude-s1', ['src/a.ts'], { ttlMs: 15 * 60_000 });
    expect((await shell(120_000)).wrote).toBe(true); // a new session is registered
    store.now += 1_000;
    expect(await shell(120_000)).toMatchObject({ owner: 'claude-s1', wrote: false }); // the lock outlasts 2 min + grace
    expect((await getLock(store.ctx.db, lock!.id))!.expires_at).toBe(T0 + 15 * 60_000);
    store.now += 1_000;
    const long = 30 * 60_000;
    expect((await shell(long)).wrote).toBe(true);
    expect((await getLock(store.ctx.db, lock!.id))!.expires_at).toBe(store.now + long + SHELL_GRACE_MS);
  });

  it('the session’s next edit of a covered file keeps the longer expiry; a re-reserve by hand still sets its own', async () => {
    const [lock] = await grant(store.ctx, 'claude-s1', ['src/b.ts'], { ttlMs: 15 * 60_000 });
    expect((await shell(30 * 60_000)).wrote).toBe(true);
    const covered = (await getLock(store.ctx.db, lock!.id))!.expires_at;
    expect(covered).toBe(store.now + 30 * 60_000 + SHELL_GRACE_MS);
    store.now += 60_000;
    const [renewed] = await grant(store.ctx, 'claude-s1', ['src/b.ts'], { ttlMs: 15 * 60_000, neverShorten: true }); // as the edit hooks renew
    expect(renewed!.expires_at).toBe(covered);
    expect((await getLock(store.ctx.db, lock!.id))!.expires_at).toBe(covered);
    await grant(store.ctx, 'claude-s1', ['src/b.ts'], { ttlMs: 5 * 60_000 }); // `coord reserve --ttl 5m`: the person's word
    expect((await getLock(store.ctx.db, lock!.id))!.expires_at).toBe(store.now + 5 * 60_000);
  });
});
