// The log alone replays a lock's life: renewals record their new expiry and mode, heartbeats are logged
// (one coalesced event per owner per interval).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coord, makeTempRepo, type TempRepo } from '../support/cli';

describe('audit log', () => {
  let repo: TempRepo;
  beforeAll(() => {
    repo = makeTempRepo('ic-audit-');
  });
  afterAll(() => repo.cleanup());

  it('renewed events record the new expiry and the mode', async () => {
    const granted = await coord(repo, ['reserve', 'a.ts', '--owner', 'alice', '--shared']);
    const id = granted.json.locks[0].id;
    const renewed = await coord(repo, ['renew', id, '--owner', 'alice', '--ttl', '20m']);
    expect(renewed.exitCode).toBe(0);
    const events = (await coord(repo, ['events'])).json.events.filter((e: any) => e.type === 'renewed' && e.lock_id === id);
    expect(events).toHaveLength(1);
    expect(events[0].detail).toEqual({ expires_at: renewed.json.locks[0].expires_at, mode: 'shared' });
  });

  it('a heartbeat writes one event per interval, not one per call', async () => {
    // A test clock near the real one: a write clock a day past the log and the real time is refused (65).
    const start = Date.now() + 3_600_000;
    const env = { IC_NOW: new Date(start).toISOString() };
    await coord(repo, ['claim', 'bd-1', '--owner', 'bob'], { env });
    expect((await coord(repo, ['heartbeat', '--owner', 'bob'], { env })).json.skipped).toBe(false);
    expect((await coord(repo, ['heartbeat', '--owner', 'bob'], { env })).json.skipped).toBe(true);
    expect((await coord(repo, ['heartbeat', '--owner', 'bob'], { env: { IC_NOW: new Date(start + 30_000).toISOString() } })).json.skipped).toBe(false);
    const beats = (await coord(repo, ['events'])).json.events.filter((e: any) => e.type === 'heartbeat' && e.owner === 'bob');
    expect(beats).toHaveLength(2);
    expect(beats[1].detail).toMatchObject({ renewed: 1 }); // 30 s later the claim is extended
  });
});
