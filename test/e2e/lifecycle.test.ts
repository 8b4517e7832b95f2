import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { COORD_BIN, cleanEnv, coord, makeTempRepo, runBin, type TempRepo } from '../support/cli';
import { onPostgres, postgresOnly } from '../support/engine';
import { PostgresConnection } from '../../src/store/postgres/connection';

let repo: TempRepo;
beforeEach(() => {
  repo = makeTempRepo();
});
afterEach(() => repo.cleanup());

const as = (owner: string, extra: Record<string, string> = {}) => ({ env: { IC_OWNER: owner, ...extra } });
const inFuture = (ms: number) => new Date(Date.now() + ms).toISOString();

describe('transfer', () => {
  it('moves locks with new tokens, after which the old owner cannot release them', async () => {
    const held = await coord(repo, ['reserve', 'src/**', 'docs/a.md'], as('alice'));
    const moved = await coord(repo, ['transfer', '--from', 'alice', '--to', 'bob'], as('alice'));
    expect(moved.exitCode).toBe(0);
    expect(moved.json.locks.map((l: any) => l.owner)).toEqual(['bob', 'bob']);
    for (const [i, lock] of moved.json.locks.entries()) expect(lock.token).toBeGreaterThan(held.json.locks[i].token);
    const old = held.json.locks[0];
    expect((await coord(repo, ['verify', old.id, String(old.token)])).json.why).toBe('token_mismatch');
    const refused = await coord(repo, ['release', old.id], as('alice'));
    expect(refused.exitCode).toBe(1);
    expect(refused.json.not_released[0].why).toBe('not_owner');
    const events = (await coord(repo, ['events'])).json.events.filter((e: any) => e.type === 'transferred');
    expect(events).toHaveLength(2);
    expect(events[0].detail).toMatchObject({ from: 'alice' });
    // Each new token is the id of the event that assigned it.
    expect(events.map((e: any) => e.id)).toEqual(moved.json.locks.map((l: any) => l.token));
    expect(events.map((e: any) => e.detail.token)).toEqual(moved.json.locks.map((l: any) => l.token));
  });

  it('moves only the locks on --pattern, and refuses when nothing matches', async () => {
    await coord(repo, ['reserve', 'src/**', 'docs/a.md'], as('alice'));
    const moved = await coord(repo, ['transfer', '--from', 'alice', '--to', 'bob', '--pattern', 'docs/a.md'], as('alice'));
    expect(moved.json.locks.map((l: any) => l.pattern)).toEqual(['docs/a.md']);
    const nothing = await coord(repo, ['transfer', '--from', 'carol', '--to', 'bob'], as('carol'));
    expect(nothing.exitCode).toBe(1);
    expect(nothing.json.error.code).toBe('NOT_FOUND');
  });
});

describe('sweep', () => {
  it.skipIf(onPostgres)('--scope REPO works from a directory outside any repository (a cron job)', async () => {
    await coord(repo, ['reserve', 'a', '--ttl', '1m'], as('alice'));
    const elsewhere = realpathSync(mkdtempSync(join(tmpdir(), 'ic-cron-')));
    try {
      const env = { IC_NOW: inFuture(2 * 60_000), GIT_CEILING_DIRECTORIES: elsewhere };
      const swept = await coord(repo, ['sweep', '--scope', repo.dir], { cwd: elsewhere, env });
      expect(swept.exitCode).toBe(0);
      expect(swept.json.expired).toBe(1);
      expect(existsSync(join(elsewhere, '.ic'))).toBe(false); // no database started where cron runs
      expect((await coord(repo, ['list'])).json.locks[0].release_reason).toBe('expired');
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('marks expired locks once, even when many sweeps race', async () => {
    for (const pattern of ['a', 'b', 'c', 'd']) await coord(repo, ['reserve', pattern, '--ttl', '1m'], as('alice'));
    const later = { env: { IC_NOW: inFuture(2 * 60_000) } };
    const dry = await coord(repo, ['sweep', '--dry-run'], later);
    expect(dry.json).toMatchObject({ ok: true, expired: 4, dry_run: true });
    const sweeps = await Promise.all(Array.from({ length: 8 }, () => coord(repo, ['sweep'], later)));
    expect(sweeps.every((s) => s.exitCode === 0)).toBe(true);
    expect(sweeps.reduce((sum, s) => sum + s.json.expired, 0)).toBe(4);
    const expired = (await coord(repo, ['events'])).json.events.filter((e: any) => e.type === 'expired');
    expect(expired).toHaveLength(4);
    expect(expired[0].detail.expired_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/); // a time, printed as every time is
    expect(new Set(expired.map((e: any) => e.lock_id)).size).toBe(4);
    const locks = (await coord(repo, ['list'])).json.locks;
    expect(locks.every((l: any) => l.release_reason === 'expired')).toBe(true);
  });

  it('--dry-run counts exactly what the real run then does, expiries in the same sweep included', async () => {
    const held = await coord(repo, ['reserve', 'a'], as('alice'));
    await coord(repo, ['release', held.json.locks[0].id], as('alice'));
    await coord(repo, ['reserve', 'b', 'c'], as('alice'));
    const later = { env: { IC_NOW: inFuture(2 * 3_600_000), IC_LOCK_DELAY: '0' } };
    const dry = await coord(repo, ['sweep', '--older-than', '1h', '--dry-run'], later);
    const real = await coord(repo, ['sweep', '--older-than', '1h'], later);
    expect(dry.json).toEqual({ ...real.json, dry_run: true });
    expect(real.json).toMatchObject({ expired: 2, purged_locks: 1, purged_events: 4, dry_run: false });
  });

  it('purges released locks and events older than --older-than', async () => {
    const held = await coord(repo, ['reserve', 'a'], as('alice'));
    await coord(repo, ['release', held.json.locks[0].id], as('alice'));
    const kept = await coord(repo, ['reserve', 'b'], as('alice'));
    const purge = await coord(repo, ['sweep', '--older-than', '1h'], { env: { IC_NOW: inFuture(2 * 3_600_000 + 60_000), IC_LOCK_DELAY: '0' } });
    expect(purge.json).toMatchObject({ expired: 1, purged_locks: 1 });
    expect(purge.json.purged_events).toBeGreaterThanOrEqual(3);
    const remaining = (await coord(repo, ['list'])).json.locks;
    expect(remaining.map((l: any) => l.pattern)).toEqual(['b']);
    // Tokens are never reused after rows and events are purged (the clock stays where the sweep left it:
    // a write more than an hour before the newest event is refused).
    const next = await coord(repo, ['reserve', 'c'], as('alice', { IC_NOW: inFuture(2 * 3_600_000 + 120_000) }));
    expect(next.json.locks[0].token).toBeGreaterThan(kept.json.locks[0].token);
    expect(next.json.locks[0].id).not.toBe(held.json.locks[0].id);
  });
});

describe('lock-delay', () => {
  it('after expiry only the previous owner may take an overlapping lock for the delay', async () => {
    await coord(repo, ['reserve', 'src/**', '--ttl', '1m'], as('alice'));
    const inDelay = { IC_NOW: inFuture(90_000) };
    const blocked = await coord(repo, ['reserve', 'src/a.ts'], as('bob', inDelay));
    expect(blocked.exitCode).toBe(1);
    expect(blocked.json.error.conflicts[0].state).toBe('lock_delay');
    const back = await coord(repo, ['reserve', 'src/**'], as('alice', inDelay));
    expect(back.exitCode).toBe(0);
    // Written at the real clock, which is behind the log now: recorded at the log's time (no earlier).
    const after = await coord(repo, ['reserve', 'lib/**', '--ttl', '1m'], as('alice'));
    expect(after.exitCode).toBe(0);
    expect(Date.parse(after.json.locks[0].created_at)).toBeGreaterThanOrEqual(Date.parse(inDelay.IC_NOW) - 1_000);
    const later = { IC_NOW: new Date(Date.parse(after.json.locks[0].expires_at) + 61_000 + 1_000).toISOString() };
    expect((await coord(repo, ['reserve', 'lib/x'], as('bob', later))).exitCode).toBe(0);
  });

  it('applies after a sweep too, and not at all after a release or with IC_LOCK_DELAY=0', async () => {
    await coord(repo, ['reserve', 'a/**', '--ttl', '1m'], as('alice'));
    const inDelay = inFuture(70_000);
    await coord(repo, ['sweep'], { env: { IC_NOW: inDelay } });
    expect((await coord(repo, ['reserve', 'a/x'], as('bob', { IC_NOW: inDelay }))).exitCode).toBe(1);
    expect((await coord(repo, ['reserve', 'a/x'], as('bob', { IC_NOW: inDelay, IC_LOCK_DELAY: '0' }))).exitCode).toBe(0);
    const released = await coord(repo, ['reserve', 'b/**', '--ttl', '1m'], as('alice'));
    await coord(repo, ['release', released.json.locks[0].id], as('alice'));
    expect((await coord(repo, ['reserve', 'b/x'], as('bob'))).exitCode).toBe(0);
  });
});

describe('named locks', () => {
  it('are their own namespace, compared by name', async () => {
    expect((await coord(repo, ['lock', 'tests'], as('alice'))).exitCode).toBe(0);
    expect((await coord(repo, ['reserve', 'tests'], as('bob'))).exitCode).toBe(0);
    const taken = await coord(repo, ['lock', 'tests'], as('bob'));
    expect(taken.exitCode).toBe(1);
    expect(taken.json.error.conflicts[0].held).toMatchObject({ type: 'named', pattern: 'tests', owner: 'alice' });
    expect((await coord(repo, ['lock', 'test*'], as('bob'))).exitCode).toBe(0);
    expect((await coord(repo, ['unlock', 'tests'], as('bob'))).exitCode).toBe(1);
    expect((await coord(repo, ['unlock', 'tests'], as('alice'))).exitCode).toBe(0);
    expect((await coord(repo, ['lock', 'tests'], as('bob'))).exitCode).toBe(0);
  });

  it('runs a command under the lock, exits with its code and frees the lock', async () => {
    const result = await coord(repo, ['lock', 'tests', '--', 'sh', '-c', 'echo out; echo err >&2; exit 7'], as('alice'));
    expect(result.exitCode).toBe(7);
    expect(result.stdout).toBe('out');
    expect(result.stderr).toContain('err');
    expect((await coord(repo, ['lock', 'tests'], as('bob'))).exitCode).toBe(0);
  });

  it('passes stdin through and keeps renewing its lease while the command runs', async () => {
    const marker = join(repo.dir, 'seen');
    const go = join(repo.dir, 'go');
    // The command runs until the test has seen what it waits for: no guess at how long a loaded machine takes.
    const script = `cat > "${marker}"; while [ ! -e "${go}" ]; do sleep 0.05; done`;
    const run = runBin(COORD_BIN, ['lock', 'tests', '--ttl', '5s', '--', 'sh', '-c', script], { cwd: repo.dir, env: { IC_OWNER: 'alice' }, input: 'hello', timeout: 90_000 });
    await waitFor(() => existsSync(marker) && readFileSync(marker, 'utf8') === 'hello');
    const during = await coord(repo, ['lock', 'tests'], as('bob'));
    expect(during.exitCode).toBe(1);
    // A 5s lease is renewed every third of it while the command runs.
    const lockId = during.json.error.conflicts[0].held.id;
    const renewals = async () => (await coord(repo, ['events'])).json.events.filter((e: any) => e.type === 'renewed' && e.lock_id === lockId).length;
    while ((await renewals()) < 2) await new Promise((resolve) => setTimeout(resolve, 200));
    writeFileSync(go, '');
    expect((await run).exitCode).toBe(0);
    expect((await coord(repo, ['lock', 'tests'], as('bob'))).exitCode).toBe(0);
  }, 90_000);

  it('frees the lock when the command is SIGKILLed', async () => {
    const pidFile = join(repo.dir, 'pid');
    const run = coord(repo, ['lock', 'tests', '--', 'sh', '-c', `echo $$ > "${pidFile}"; exec sleep 30`], as('alice'));
    await waitFor(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '');
    process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGKILL');
    const result = await run;
    expect(result.exitCode).toBe(137);
    expect((await coord(repo, ['lock', 'tests'], as('bob'))).exitCode).toBe(0);
  });

  it('frees the lock and stops the command when ic gets SIGTERM', async () => {
    const pidFile = join(repo.dir, 'pid');
    // No forced SIGKILL from execa: ic must end on the SIGTERM alone. ic's handlers are installed before
    // it starts the command, so once the pid file exists a SIGTERM is always forwarded.
    const child = execa(COORD_BIN, ['lock', 'tests', '--', 'sh', '-c', `echo $$ > "${pidFile}"; exec sleep 30`], {
      cwd: repo.dir,
      env: cleanEnv({ IC_OWNER: 'alice' }),
      extendEnv: false,
      reject: false,
      forceKillAfterDelay: false,
    });
    let commandPid: number | undefined;
    try {
      await waitFor(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '');
      commandPid = Number(readFileSync(pidFile, 'utf8'));
      process.kill(child.pid!, 'SIGTERM');
      const result = await child;
      // ic dies by the SIGTERM it got, after cleanup (a shell still sees $? = 143), so a script stops too.
      expect(result.signal).toBe('SIGTERM');
      expect(() => process.kill(commandPid!, 0)).toThrow();
      expect((await coord(repo, ['lock', 'tests'], as('bob'))).exitCode).toBe(0);
    } finally {
      for (const pid of [commandPid, child.pid]) {
        try {
          if (pid) process.kill(pid, 'SIGKILL'); // never leave a sleep behind for the rest of the run
        } catch {
          // already gone
        }
      }
    }
  });

  it('serialises two `lock --wait` runs', async () => {
    const log = join(repo.dir, 'log');
    writeFileSync(log, '');
    const body = (name: string) => `echo start-${name} >> "${log}"; sleep 0.4; echo end-${name} >> "${log}"`;
    const [a, b] = await Promise.all([
      coord(repo, ['lock', 'tests', '--wait', '60s', '--', 'sh', '-c', body('a')], as('alice')),
      coord(repo, ['lock', 'tests', '--wait', '60s', '--', 'sh', '-c', body('b')], as('bob')),
    ]);
    expect([a.exitCode, b.exitCode]).toEqual([0, 0]);
    const lines = readFileSync(log, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]!.replace('start-', '')).toBe(lines[1]!.replace('end-', ''));
    expect(lines[2]!.replace('start-', '')).toBe(lines[3]!.replace('end-', ''));
  });
});

describe('claims and who', () => {
  it('gives exactly one winner to racing claimers', async () => {
    const owners = Array.from({ length: 10 }, (_, i) => `agent-${i}`);
    const results = await Promise.all(owners.map((owner) => coord(repo, ['claim', 'issue-42'], as(owner))));
    const winners = results.filter((r) => r.exitCode === 0);
    expect(winners).toHaveLength(1);
    const winner = winners[0]!.json.locks[0].owner;
    for (const loser of results.filter((r) => r.exitCode !== 0)) {
      expect(loser.exitCode).toBe(1);
      expect(loser.json.error.message).toContain(`already claimed by ${winner}`);
    }
    const again = await coord(repo, ['claim', 'issue-42'], as(winner));
    expect(again.json.locks[0].id).toBe(winners[0]!.json.locks[0].id);
    expect(Date.parse(again.json.locks[0].expires_at) - Date.parse(again.json.locks[0].created_at)).toBeGreaterThanOrEqual(30 * 60_000);
  });

  it('groups locks and claims by owner, most recently active first', async () => {
    await coord(repo, ['reserve', 'a.ts'], as('alice'));
    await coord(repo, ['claim', 'issue-1'], as('alice'));
    await coord(repo, ['reserve', 'b.ts'], as('bob'));
    await coord(repo, ['heartbeat'], as('alice', { IC_NOW: inFuture(1_000) }));
    const result = await coord(repo, ['who']);
    expect(result.json.owners.map((o: any) => o.owner)).toEqual(['alice', 'bob']);
    expect(result.json.owners[0].claims.map((c: any) => c.pattern)).toEqual(['issue-1']);
    expect(result.json.owners[0].locks.map((c: any) => c.pattern)).toEqual(['a.ts']);
    // The table too: a heading per owner, then that owner's rows only.
    const table = (await coord(repo, ['who', '--format', 'table'])).stdout.split('\n');
    const headings = table.filter((line) => /^\S+ \(last active /.test(line)).map((line) => line.split(' ')[0]);
    expect(headings).toEqual(['alice', 'bob']);
    const bobAt = table.findIndex((line) => line.startsWith('bob (last active '));
    expect(table.slice(0, bobAt).join('\n')).toMatch(/a\.ts[\s\S]*issue-1/);
    expect(table.slice(0, bobAt).join('\n')).not.toContain('b.ts');
    expect(table.slice(bobAt).join('\n')).toContain('b.ts');
    expect((await coord(repo, ['unclaim', 'issue-1'], as('alice'))).exitCode).toBe(0);
    expect((await coord(repo, ['unclaim', 'issue-1'], as('alice'))).exitCode).toBe(1);
  });
});

describe('heartbeat', () => {
  it('renews all of an owner’s locks and skips the write when seen just now', async () => {
    await coord(repo, ['reserve', 'a.ts', '--ttl', '1m'], as('alice'));
    await coord(repo, ['claim', 'issue-1', '--ttl', '2m'], as('alice'));
    const at = inFuture(50_000);
    const beat = await coord(repo, ['heartbeat'], as('alice', { IC_NOW: at }));
    expect(beat.json).toMatchObject({ ok: true, owner: 'alice', renewed: 2, skipped: false });
    const soon = await coord(repo, ['heartbeat'], as('alice', { IC_NOW: inFuture(52_000) }));
    expect(soon.json.skipped).toBe(true);
    const locks = (await coord(repo, ['list', '--active'], { env: { IC_NOW: inFuture(100_000) } })).json.locks;
    expect(locks.map((l: any) => l.pattern).sort()).toEqual(['a.ts', 'issue-1']);
  });
});

describe('events', () => {
  it('filters by id and duration, limits, and advances a consumer cursor', async () => {
    for (const pattern of ['a', 'b', 'c']) expect((await coord(repo, ['reserve', pattern], as('alice'))).exitCode).toBe(0);
    const all = (await coord(repo, ['events'])).json.events;
    expect(all.map((e: any) => `${e.type} ${e.pattern}`)).toEqual(['reserved a', 'reserved b', 'reserved c']);
    expect(Object.keys(all[0])).toEqual(expect.arrayContaining(['id', 'type', 'lock_id', 'scope', 'owner', 'pattern', 'reason', 'created_at']));
    expect((await coord(repo, ['events', '--since', String(all[0].id)])).json.events).toHaveLength(2);
    expect((await coord(repo, ['events', '--since', '1h'])).json.events).toHaveLength(3);
    expect((await coord(repo, ['events', '--limit', '1'])).json.events).toHaveLength(1);
    expect((await coord(repo, ['events', '--limit', '0'])).exitCode).toBe(65);
    const first = await coord(repo, ['events', '--consumer', 'ci', '--limit', '2']);
    expect(first.json.events.map((e: any) => e.pattern)).toEqual(['a', 'b']);
    const second = await coord(repo, ['events', '--consumer', 'ci']);
    expect(second.json.events.map((e: any) => e.pattern)).toEqual(['c']);
    expect((await coord(repo, ['events', '--consumer', 'ci'])).json.events).toEqual([]);
  });

  it('delivers each event once to concurrent readers of one consumer', async () => {
    // One call, twenty events of one transaction (twenty calls took a minute on a loaded machine).
    expect((await coord(repo, ['reserve', ...Array.from({ length: 20 }, (_, i) => `f${i}`)], as('alice'))).json.locks).toHaveLength(20);
    const readers = await Promise.all(Array.from({ length: 8 }, () => coord(repo, ['events', '--consumer', 'shared', '--limit', '3'])));
    for (const reader of readers) expect(reader.exitCode, reader.stderr).toBe(0);
    const more = await coord(repo, ['events', '--consumer', 'shared', '--limit', '100']);
    const ids = [...readers.flatMap((r) => r.json.events.map((e: any) => e.id)), ...more.json.events.map((e: any) => e.id)];
    expect(ids).toHaveLength(20);
    expect(new Set(ids).size).toBe(20);
  });

  it('hands a consumer every event exactly once while writers of three scopes commit at once', async () => {
    // On PostgreSQL writers of different scopes run in parallel and take event ids from one sequence, so ids
    // commit out of order; a cursor that passed an id still being committed would skip it (store/events.ts).
    const scopes = ['s0', 's1', 's2'].map((name) => join(repo.dir, name));
    for (const scope of scopes) mkdirSync(scope);
    const seen: number[] = [];
    const consume = async () => {
      const read = await coord(repo, ['events', '--consumer', 'audit', '--limit', '4']);
      expect(read.exitCode, read.stderr).toBe(0);
      seen.push(...read.json.events.map((e: any) => e.id));
      return read.json.events.length;
    };
    let writing = true;
    const writers = Promise.all(
      scopes.map(async (scope, w) => {
        for (let i = 0; i < 2; i++) {
          const held = await coord(repo, ['reserve', `f${w}-${i}`, '--scope', scope], as(`w${w}`));
          expect(held.exitCode, held.stderr).toBe(0);
          expect((await coord(repo, ['release', held.json.locks[0].id, '--scope', scope], as(`w${w}`))).exitCode).toBe(0);
        }
      }),
    ).finally(() => (writing = false));
    while (writing) await consume();
    await writers;
    while ((await consume()) > 0);
    const all = (await coord(repo, ['events', '--limit', '10000'])).json.events.map((e: any) => e.id);
    expect(all).toHaveLength(scopes.length * 2 * 2);
    expect([...seen].sort((x, y) => x - y)).toEqual(all); // each once: none skipped, none twice
  });

  postgresOnly.it('never moves a consumer past an event whose transaction is still open (a smaller id that commits later)', async () => {
    expect((await coord(repo, ['reserve', 'a'], as('alice'))).exitCode).toBe(0);
    const slow = PostgresConnection.open(repo.db);
    try {
      // Another scope's writer, slow: it takes its event id, and commits only after `reserve b` has.
      await slow.exec('BEGIN');
      const held = (await slow.get<{ id: number }>("INSERT INTO events (type, scope, owner, created_at) VALUES ('heartbeat', ?, 'slow', 0) RETURNING id", [`${repo.scope}:slow`]))!.id;
      const b = await coord(repo, ['reserve', 'b'], as('alice'));
      expect(b.exitCode).toBe(0);
      expect(b.json.locks[0].token).toBeGreaterThan(held); // its grant's event id
      const first = await coord(repo, ['events', '--consumer', 'ci']);
      // b is committed, but a cursor past b would never see the smaller id still open: the read stops before both.
      expect(first.json.events.map((e: any) => e.pattern)).toEqual(['a']);
      await slow.exec('COMMIT');
      const next = await coord(repo, ['events', '--consumer', 'ci']);
      expect(next.json.events.map((e: any) => e.id)).toEqual([held, b.json.locks[0].token]);
    } finally {
      slow.close();
    }
  });

  postgresOnly.it("keeps another project's events out though its key starts with this one's and a slash", async () => {
    // A key may hold '/', never ':': this project's scopes are KEY and KEY:dir, and KEY/x is another project.
    const other = realpathSync(mkdtempSync(join(tmpdir(), 'ic-other-')));
    const inOther = (owner: string) => ({ cwd: other, env: { IC_OWNER: owner, IC_DB: repo.db } });
    try {
      execFileSync('git', ['init', '-q', other]);
      execFileSync('git', ['-C', other, 'config', 'ic.project', `${repo.scope}/x`]);
      expect((await coord(repo, ['reserve', 'mine'], as('alice'))).exitCode).toBe(0);
      const theirs = await coord(repo, ['reserve', 'theirs'], inOther('bob'));
      expect(theirs.exitCode, theirs.stderr).toBe(0);
      expect((await coord(repo, ['events'])).json.events.map((e: any) => e.pattern)).toEqual(['mine']);
      expect((await coord(repo, ['events', '--consumer', 'ci'])).json.events.map((e: any) => e.pattern)).toEqual(['mine']);
      expect((await coord(repo, ['events'], inOther('bob'))).json.events.map((e: any) => e.pattern)).toEqual(['theirs']);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it('follows new events as JSON lines until SIGINT', async () => {
    // From the start of the (empty) log, so a follower that starts late on a loaded machine still sees both;
    // that a bare --follow starts at now is the next test's.
    const follower = execa(COORD_BIN, ['events', '--follow', '--since', '0'], { cwd: repo.dir, env: cleanEnv({ IC_POLL_MS: '50' }), extendEnv: false, reject: false });
    let out = '';
    follower.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    await coord(repo, ['reserve', 'x'], as('alice'));
    await coord(repo, ['reserve', 'y'], as('alice'));
    await waitFor(() => out.includes('"y"'));
    follower.kill('SIGINT');
    const result = await follower;
    expect(result.exitCode).toBe(0);
    const lines = String(result.stdout)
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((e) => e.pattern)).toEqual(['x', 'y']);
  });

  it('--follow on a pipe starts at now, not with the whole history; --since 0 replays it first', async () => {
    await coord(repo, ['reserve', 'old'], as('alice'));
    const followUntil = async (args: string[], seen: string, write: (i: number) => Promise<unknown>) => {
      const follower = execa(COORD_BIN, ['events', '--follow', ...args], { cwd: repo.dir, env: cleanEnv({ IC_POLL_MS: '50' }), extendEnv: false, reject: false });
      let out = '';
      follower.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
      // New events until the follower prints one: no guess at how long it takes to start.
      for (let i = 0; !out.includes(seen); i++) {
        await write(i);
        await waitFor(() => out.includes(seen), 300).catch(() => undefined);
        if (i > 100) throw new Error(`the follower printed no ${seen}`);
      }
      follower.kill('SIGINT');
      await follower;
      return out
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).pattern as string);
    };
    const fromNow = await followUntil([], '"new', (i) => coord(repo, ['reserve', `new${i}`], as('alice')));
    expect(fromNow).not.toContain('old');
    expect(fromNow[0]).toMatch(/^new\d+$/);
    const replay = await followUntil(['--since', '0'], '"old"', async () => undefined);
    expect(replay[0]).toBe('old');
  });
});

describe('stats', () => {
  it('counts tries, grants, conflicts, waits and the contended patterns', async () => {
    await coord(repo, ['reserve', 'src/**'], as('alice'));
    await coord(repo, ['reserve', 'src/a.ts'], as('bob'));
    await coord(repo, ['reserve', 'src/b.ts'], as('carol'));
    await coord(repo, ['reserve', 'src/**'], as('alice'));
    const stats = (await coord(repo, ['stats'])).json;
    expect(stats).toMatchObject({ ok: true, tries: 4, grants: 1, renewals: 1, conflicts: 2, denied_tries: 2, waits: 0, expiries: 0 });
    expect(stats.conflict_rate).toBeCloseTo(0.5);
    expect(stats.most_contended_patterns[0]).toEqual({ pattern: 'src/**', conflicts: 2 });
    expect(stats.most_blocking_owners[0]).toEqual({ owner: 'alice', conflicts: 2 });
    const recent = (await coord(repo, ['stats', '--since', '1s'], { env: { IC_NOW: inFuture(3_600_000) } })).json;
    expect(recent.tries).toBe(0);
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
