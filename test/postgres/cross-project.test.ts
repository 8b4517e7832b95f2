// Projects on one server do not wait for each other (issue #38, item 5): a transaction of project A holding
// what any writer of A holds (the shared side of the everything lock and A's scope row) does not hold up an
// agent's hook in project B, whose session step and reservation complete while A's transaction is open. The
// same hook in A, meanwhile, cannot get A's scope (so the transaction held it for real). The session step
// swallows its errors, so its write is seen by its heartbeat event.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COORD_BIN, runBin } from '../support/cli';
import { freshPostgresDatabase, type TestDatabase } from '../support/engine';
import { connect, keyedProject, withConnection } from './support';
import { EVERYTHING_LOCK_KEY } from '../../src/store/postgres/pg-connection';

let root: string;
let database: TestDatabase;

const project = (name: string): string => keyedProject(root, name);

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'ic-cross-project-')));
  database = freshPostgresDatabase();
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  database?.drop();
});

// A Claude edit hook of a new session (so its session step writes: registers the session), in `dir`.
function editHook(dir: string, session: string, file: string) {
  const input = JSON.stringify({
    session_id: session,
    hook_event_name: 'PreToolUse',
    tool_name: 'Edit',
    tool_use_id: `t-${session}`,
    cwd: dir,
    tool_input: { file_path: join(dir, file), old_string: '', new_string: 'x' },
  });
  return runBin(COORD_BIN, ['hook', 'claude-pre-edit'], { cwd: dir, env: { IC_DB: database.url, IC_BUSY_TIMEOUT: '300ms' }, input });
}

// The session step's write (it swallows its errors: the hook goes on without it): its heartbeat event.
async function heartbeats(owner: string): Promise<number> {
  return withConnection(database.url, async (db) => (await db.get<{ n: number }>("SELECT count(*)::int AS n FROM events WHERE type = 'heartbeat' AND owner = ?", [owner]))!.n);
}

async function lockOwners(dir: string): Promise<string[][]> {
  const listed = await runBin(COORD_BIN, ['list'], { cwd: dir, env: { IC_DB: database.url } });
  expect(listed.exitCode, listed.stderr).toBe(0);
  return listed.json.locks.map((lock: { pattern: string; owner: string }) => [lock.pattern, lock.owner]);
}

describe('two projects on one server', () => {
  it("a transaction open in project A does not hold up a hook in project B (A's own hook waits for it)", async () => {
    const a = project('proj-a');
    const b = project('proj-b');
    // Both projects' scopes and sessions exist, as on a server in use.
    for (const [dir, session] of [
      [a, 'a0'],
      [b, 'b0'],
    ] as const)
      expect((await editHook(dir, session, 'warm.txt')).stdout).not.toContain('could not check');

    const held = connect(database.url);
    try {
      await held.exec('BEGIN ISOLATION LEVEL READ COMMITTED');
      await held.get(`SELECT pg_advisory_xact_lock_shared(${EVERYTHING_LOCK_KEY})`);
      await held.lockScope('proj-a');

      // While A's transaction is open: B's new session registers and reserves its file.
      const inB = await editHook(b, 'b1', 'src/b.ts');
      expect(inB.exitCode).toBe(0);
      expect(inB.stdout).not.toContain('could not check');
      expect(inB.stdout).not.toContain('deny');
      expect(await lockOwners(b)).toContainEqual(['src/b.ts', 'claude-b1']);
      expect(await heartbeats('claude-b1')).toBe(1);

      // A's own hook cannot get A's scope meanwhile: it answers by the fail policy (allow, "could not check").
      const inA = await editHook(a, 'a1', 'src/a.ts');
      expect(inA.exitCode).toBe(0);
      expect(inA.stdout).toContain('could not check');
      expect(await heartbeats('claude-a1')).toBe(0);
    } finally {
      await held.rollbackQuietly();
      held.close();
    }
    expect(await lockOwners(a)).not.toContainEqual(['src/a.ts', 'claude-a1']);
    const after = await editHook(a, 'a1', 'src/a.ts');
    expect(after.stdout).not.toContain('could not check');
    expect(await lockOwners(a)).toContainEqual(['src/a.ts', 'claude-a1']);
    expect(await heartbeats('claude-a1')).toBe(1);
  });
});

describe('each project reads its own events on a server', () => {
  const coord = (dir: string, owner: string, ...args: string[]) => runBin(COORD_BIN, args, { cwd: dir, env: { IC_DB: database.url, IC_OWNER: owner } });

  it('events, a consumer and stats in one project never show another project’s (a key that prefixes another’s included)', async () => {
    const mine = project('team');
    const theirs = project('team-2');
    expect((await coord(mine, 'alice', 'reserve', 'a.txt', '--reason', 'mine')).exitCode).toBe(0);
    expect((await coord(theirs, 'carol', 'reserve', 'secret.txt', '--reason', 'theirs')).exitCode).toBe(0);
    expect((await coord(theirs, 'dave', 'reserve', 'secret.txt')).exitCode).toBe(1); // a conflict event in theirs
    expect((await coord(mine, 'bob', 'reserve', 'b.txt')).exitCode).toBe(0);

    const listed = await coord(mine, 'alice', 'events');
    expect(listed.exitCode, listed.stderr).toBe(0);
    expect(listed.json.events.map((e: { owner: string; pattern: string }) => [e.owner, e.pattern])).toEqual([
      ['alice', 'a.txt'],
      ['bob', 'b.txt'],
    ]);
    // A consumer reads its project's events only, and its cursor moves past them: nothing is left after.
    const first = await coord(mine, 'alice', 'events', '--consumer', 'ci', '--limit', '1');
    const rest = await coord(mine, 'alice', 'events', '--consumer', 'ci');
    expect([...first.json.events, ...rest.json.events].map((e: { owner: string }) => e.owner)).toEqual(['alice', 'bob']);
    expect((await coord(mine, 'alice', 'events', '--consumer', 'ci')).json.events).toEqual([]);
    const stats = await coord(mine, 'alice', 'stats');
    expect(stats.exitCode, stats.stderr).toBe(0);
    expect([stats.json.grants, stats.json.conflicts, stats.json.most_blocked_owners]).toEqual([2, 0, []]);
    // The other project sees its own, as before.
    const other = await coord(theirs, 'carol', 'events');
    expect(other.json.events.map((e: { owner: string; type: string }) => [e.owner, e.type])).toEqual([
      ['carol', 'reserved'],
      ['dave', 'conflict'],
    ]);
    expect((await coord(theirs, 'carol', 'stats')).json.most_blocked_owners).toEqual([{ owner: 'dave', conflicts: 1 }]);
  });
});
