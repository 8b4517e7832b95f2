import { describe, expect, it } from 'vitest';
import { readStat, thisMachine } from '../../src/coord/client-process';
import { askHandoff } from '../../src/coord/handoff';
import { takeName } from '../../src/coord/named';
import { stepSession } from '../../src/coord/session-step';
import { getLock } from '../../src/store/locks';
import { putSession, sessionByOwner, type ClientProcess } from '../../src/store/sessions';
import { grant, useTestStore } from '../support/store';

// The session step every agent hook runs first (src/coord/session-step.ts): one read when nothing needs
// writing, and the same writes as before when something does.
const store = useTestStore();
const here = thisMachine()!;
const thisProcess: ClientProcess = { ...here, pid: process.pid, start: readStat(process.pid)!.start };
const activity = { base: 'claude-s1', agent: 'claude', client: thisProcess };
const lineage = (live: string) => (owner: string) => owner === live || owner.startsWith(`${live}/`);
const newestEventId = async () => ((await store.ctx.db.prepare('SELECT max(id) AS id FROM events').get()) as { id: unknown }).id;

describe('the session step', () => {
  it('registers a new session, then answers a recently seen one without writing', async () => {
    expect(await stepSession(store.ctx, activity, lineage)).toEqual({ owner: 'claude-s1', requests: [] });
    const registered = (await sessionByOwner(store.ctx.db, 'claude-s1'))!;
    expect(registered).toMatchObject({ pid: process.pid, last_seen: store.now });
    const events = await newestEventId();
    store.now += 1_000;
    expect(await stepSession(store.ctx, activity, lineage)).toEqual({ owner: 'claude-s1', requests: [] });
    expect(await newestEventId()).toEqual(events); // no heartbeat written
    expect((await sessionByOwner(store.ctx.db, 'claude-s1'))!.last_seen).toBe(registered.last_seen);
  });

  it('releases the locks of a session on this host whose client process is gone, and steps the live one', async () => {
    const [held] = await grant(store.ctx, 'claude-gone', ['src/a.ts']);
    // This process's pid with another start time: a process that ended and whose pid was reused.
    await putSession(store.ctx.db, {
      owner: 'claude-gone',
      base: 'claude-gone',
      agent: 'claude',
      ...here,
      pid: process.pid,
      start: `${thisProcess.start}0`,
      created_at: store.now,
      last_seen: store.now,
    });
    expect((await stepSession(store.ctx, activity)).owner).toBe('claude-s1');
    expect(await getLock(store.ctx.db, held!.id)).toMatchObject({ release_reason: 'client_gone' });
    expect(await sessionByOwner(store.ctx.db, 'claude-gone')).toBeUndefined();
  });

  it('tells a hand-off request once, read with the session when nothing else needs writing', async () => {
    await stepSession(store.ctx, activity, lineage);
    await takeName(store.ctx, { type: 'claim', name: 'issue-7', owner: 'claude-s1', reason: null });
    store.now += 1_000;
    await askHandoff(store.ctx, { item: 'issue-7', owner: 'bob', reason: 'I need it for the release' });
    store.now += 1_000;
    const told = await stepSession(store.ctx, activity, lineage);
    expect(told.requests).toMatchObject([{ item: 'issue-7', holder: 'claude-s1', by: 'bob', reason: 'I need it for the release' }]);
    store.now += 1_000;
    expect((await stepSession(store.ctx, activity, lineage)).requests).toEqual([]);
    expect((await stepSession(store.ctx, activity)).requests).toEqual([]); // not asked: none read
  });

  it('a session not seen for a while is renewed (a heartbeat), with its locks', async () => {
    await stepSession(store.ctx, activity);
    const [lock] = await grant(store.ctx, 'claude-s1', ['src/b.ts'], { ttlMs: 15 * 60_000 });
    store.now += 10 * 60_000;
    const events = await newestEventId();
    expect((await stepSession(store.ctx, activity)).owner).toBe('claude-s1');
    expect(await newestEventId()).not.toEqual(events);
    expect((await getLock(store.ctx.db, lock!.id))!.expires_at).toBe(store.now + 15 * 60_000);
  });
});
