// The real `ic`/`coord` bin against the suite's PostgreSQL server (docs/postgres.md): `--db postgres://…` and
// IC_DB give the same JSON and exit codes as SQLite; the scope is the project, so two clones of one repository
// (different directories, one root commit) share locks and unrelated repositories do not; the server's clock
// decides, whatever IC_NOW a client runs with; a password never reaches stdout or stderr.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { coord, ic, makeTempRepo, type TempRepo } from '../support/cli';
import { connect, freshDatabaseUrl, serverTcpUrl } from './support';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function commit(dir: string, message = 'first'): void {
  execFileSync('git', ['-C', dir, 'commit', '-q', '--allow-empty', '-m', message]);
}

// A repository with one commit (its root commit names the project on a server). The message is the
// directory's: two empty first commits by one author in one second would be one commit id, one project.
function repoWithCommit(): TempRepo {
  const repo = makeTempRepo('ic-pg-cli-');
  commit(repo.dir, `first commit of ${repo.dir}`);
  cleanups.push(repo.cleanup);
  return repo;
}

// A second clone of `repo` in another directory: what another host has.
function cloneOf(repo: TempRepo): TempRepo {
  const parent = realpathSync(mkdtempSync(join(tmpdir(), 'ic-pg-clone-')));
  const dir = join(parent, 'clone');
  execFileSync('git', ['clone', '-q', repo.dir, dir]);
  cleanups.push(() => rmSync(parent, { recursive: true, force: true }));
  return { dir, db: '', cleanup: () => undefined };
}

function rootCommit(dir: string): string {
  return execFileSync('git', ['-C', dir, 'rev-list', '--max-parents=0', 'HEAD'], { encoding: 'utf8' }).trim();
}

describe('every command on a PostgreSQL URL', () => {
  it('init creates the schema, then reserve, check, list, renew, release answer as on SQLite', async () => {
    const repo = repoWithCommit();
    const db = freshDatabaseUrl();
    const env = { IC_DB: db };

    const init = await ic(repo, ['init'], { env });
    expect(init.exitCode, init.stderr).toBe(0);
    expect(init.json).toMatchObject({ ok: true, schema_version: 5, scope: rootCommit(repo.dir), project: rootCommit(repo.dir) });
    expect(init.json.db).toBe(db); // no password in this URL: shown as given
    expect(readdirSync(join(repo.dir, '.git'))).not.toContain('ic'); // nothing beside a server database

    const reserved = await coord(repo, ['reserve', 'src/a.ts', 'docs/**', '--owner', 'alice', '--ttl', '10m'], { env });
    expect(reserved.exitCode, reserved.stderr).toBe(0);
    expect(reserved.json.locks.map((lock: { pattern: string }) => lock.pattern)).toEqual(['src/a.ts', 'docs/**']);
    const [first, second] = reserved.json.locks as { id: string; token: number; scope: string }[];
    expect(second!.token).toBeGreaterThan(first!.token);
    expect(first!.scope).toBe(rootCommit(repo.dir));

    const check = await coord(repo, ['check', 'docs/guide.md', '--owner', 'bob'], { env });
    expect(check.exitCode).toBe(1);
    expect(check.json).toMatchObject({ ok: true, free: false });
    expect(check.json.conflicts[0].held.owner).toBe('alice');

    const conflict = await coord(repo, ['reserve', 'src/*.ts', '--owner', 'bob'], { env });
    expect(conflict.exitCode).toBe(1);
    expect(conflict.json.error.code).toBe('CONFLICT');
    expect(conflict.json.error.conflicts[0]).toMatchObject({ example: 'src/a.ts', held: { owner: 'alice', pattern: 'src/a.ts' } });

    // --db names the same database as IC_DB
    const listed = await coord(repo, ['list', '--db', db], {});
    expect(listed.exitCode, listed.stderr).toBe(0);
    expect(listed.json.locks.map((lock: { id: string }) => lock.id)).toEqual([first!.id, second!.id]);

    const renewed = await coord(repo, ['renew', '--owner', 'alice', '--ttl', '20m'], { env });
    expect(renewed.exitCode, renewed.stderr).toBe(0);
    expect(renewed.json.locks).toHaveLength(2);

    const verify = await coord(repo, ['verify', first!.id, String(first!.token)], { env });
    expect(verify.exitCode).toBe(0);
    expect(verify.json.valid).toBe(true);

    const released = await coord(repo, ['release', '--all', '--owner', 'alice'], { env });
    expect(released.exitCode, released.stderr).toBe(0);
    expect(released.json.released).toHaveLength(2);
    const after = await coord(repo, ['reserve', 'src/*.ts', '--owner', 'bob'], { env });
    expect(after.exitCode, after.stderr).toBe(0);
    const stale = await coord(repo, ['verify', first!.id, String(first!.token)], { env });
    expect(stale.exitCode).toBe(1);

    const events = await coord(repo, ['events'], { env });
    expect(events.exitCode, events.stderr).toBe(0);
    const ids = (events.json.events as { id: number }[]).map((event) => event.id);
    expect(ids.length).toBeGreaterThanOrEqual(6);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
    expect((events.json.events as { type: string }[]).map((event) => event.type)).toEqual(expect.arrayContaining(['reserved', 'conflict', 'renewed', 'released']));
  });

  it('named locks and claims: one holder, a CONFLICT for the other, free after release', async () => {
    const repo = repoWithCommit();
    const env = { IC_DB: freshDatabaseUrl() };
    expect((await coord(repo, ['lock', 'deploy', '--owner', 'alice'], { env })).exitCode).toBe(0);
    const taken = await coord(repo, ['lock', 'deploy', '--owner', 'bob'], { env });
    expect(taken.exitCode).toBe(1);
    expect(taken.json.error.code).toBe('CONFLICT');
    expect((await coord(repo, ['unlock', 'deploy', '--owner', 'alice'], { env })).exitCode).toBe(0);
    expect((await coord(repo, ['lock', 'deploy', '--owner', 'bob'], { env })).exitCode).toBe(0);

    const claim = await coord(repo, ['claim', 'ISSUE-7', '--owner', 'alice'], { env });
    expect(claim.exitCode, claim.stderr).toBe(0);
    expect(claim.json.locks[0]).toMatchObject({ type: 'claim', pattern: 'ISSUE-7', owner: 'alice' });
    const second = await coord(repo, ['claim', 'ISSUE-7', '--owner', 'bob'], { env });
    expect(second.exitCode).toBe(1);
    expect(second.json.error.code).toBe('CONFLICT');
    const who = await coord(repo, ['who'], { env });
    expect(who.exitCode).toBe(0);
    expect(who.json.owners.map((owner: { owner: string }) => owner.owner).sort()).toEqual(['alice', 'bob']);
  });

  it('a write without `ic init` creates the schema; a reader of a database without it is DB_UNAVAILABLE (69) saying ic init', async () => {
    const repo = repoWithCommit();
    const reader = await coord(repo, ['list'], { env: { IC_DB: freshDatabaseUrl() } });
    expect(reader.exitCode).toBe(69);
    expect(reader.json.error.code).toBe('DB_UNAVAILABLE');
    expect(reader.json.error.message).toContain('ic init --db');
    const env = { IC_DB: freshDatabaseUrl() };
    expect((await coord(repo, ['reserve', 'a.txt', '--owner', 'alice'], { env })).exitCode).toBe(0);
    expect((await coord(repo, ['list'], { env })).json.locks).toHaveLength(1);
  });
});

describe('connecting', () => {
  it('a wrong password is DB_UNAVAILABLE (69), and the password is in neither stdout nor stderr', async () => {
    const repo = repoWithCommit();
    const wrong = 'Not-The-Password-5521';
    const url = freshDatabaseUrl(serverTcpUrl()).replace(/:[^:@/]*@/, `:${wrong}@`);
    for (const run of [await coord(repo, ['reserve', 'a.txt', '--owner', 'alice'], { env: { IC_DB: url } }), await coord(repo, ['list', '--db', url], {}), await ic(repo, ['init', '--db', url])]) {
      expect(run.exitCode).toBe(69);
      expect(run.json.error.code).toBe('DB_UNAVAILABLE');
      expect(run.stdout + run.stderr).not.toContain(wrong);
      expect(run.stdout).toContain(':***@');
    }
  });

  it('the right password over TCP works, and the URL shown has it hidden', async () => {
    const repo = repoWithCommit();
    const url = freshDatabaseUrl(serverTcpUrl());
    const password = /:([^:@/]*)@/.exec(url)![1]!;
    const init = await ic(repo, ['init', '--db', url]);
    expect(init.exitCode, init.stderr).toBe(0);
    expect(init.stdout + init.stderr).not.toContain(password);
    expect(init.json.db).toContain(':***@');
  });

  it('doctor checks the connection, server version, schema, clock skew and isolation; an unreachable server is 69', async () => {
    const repo = repoWithCommit();
    const env = { IC_DB: freshDatabaseUrl() };
    const before = await ic(repo, ['doctor'], { env });
    expect(before.json.checks.find((check: { name: string }) => check.name === 'schema').detail).toContain('no ic schema yet');
    expect((await ic(repo, ['init'], { env })).exitCode).toBe(0);
    const doctor = await ic(repo, ['doctor'], { env });
    expect(doctor.json).toMatchObject({ ok: true, schema_version: 5, latest_schema_version: 5 });
    expect(doctor.json.checks.map((check: { name: string }) => check.name)).toEqual(expect.arrayContaining(['connection', 'server_version', 'schema', 'clock_skew', 'isolation']));
    expect(doctor.json.checks.filter((check: { name: string; ok: boolean }) => ['connection', 'server_version', 'schema', 'clock_skew'].includes(check.name) && !check.ok)).toEqual([]);
    const down = await ic(repo, ['doctor'], { env: { IC_DB: 'postgresql://nobody@127.0.0.1:1/none?connect_timeout=2' } });
    expect(down.exitCode).toBe(69);
    expect(down.json.error.code).toBe('DB_UNAVAILABLE');
  });

  it('a server that is not there is DB_UNAVAILABLE (69)', async () => {
    const repo = repoWithCommit();
    const run = await coord(repo, ['list'], { env: { IC_DB: 'postgresql://nobody@127.0.0.1:1/none?connect_timeout=2' } });
    expect(run.exitCode).toBe(69);
    expect(run.json.error.code).toBe('DB_UNAVAILABLE');
  });
});

describe('events across hosts', () => {
  it('a consumer cursor never passes an event a still-running transaction may yet commit with a smaller id', async () => {
    const repo = repoWithCommit();
    const url = freshDatabaseUrl();
    const env = { IC_DB: url };
    expect((await coord(repo, ['reserve', 'a.txt', '--owner', 'alice'], { env })).exitCode).toBe(0);
    const first = await coord(repo, ['events', '--consumer', 'c1'], { env });
    expect(first.json.events.map((event: { type: string }) => event.type)).toEqual(['reserved']);
    // Another host's transaction is under way (it holds a transaction id): what commits after it started may
    // not be handed out yet, since that transaction could still commit a smaller event id.
    const other = connect(url);
    try {
      await other.exec('BEGIN');
      await other.get('SELECT pg_current_xact_id() AS x');
      expect((await coord(repo, ['reserve', 'b.txt', '--owner', 'alice'], { env })).exitCode).toBe(0);
      const held = await coord(repo, ['events', '--consumer', 'c1'], { env });
      expect(held.exitCode, held.stderr).toBe(0);
      expect(held.json.events).toEqual([]);
      await other.exec('ROLLBACK');
    } finally {
      other.close();
    }
    const after = await coord(repo, ['events', '--consumer', 'c1'], { env });
    expect(after.json.events.map((event: { pattern: string }) => event.pattern)).toEqual(['b.txt']);
  });
});

describe('events across hosts, a transaction that started first and took its id last', () => {
  it('a consumer gets both events, the larger id first, and never passes the smaller one', async () => {
    const repo = repoWithCommit();
    const url = freshDatabaseUrl();
    const env = { IC_DB: url };
    expect((await coord(repo, ['reserve', 'a.txt', '--owner', 'alice'], { env })).exitCode).toBe(0);
    const read = (await coord(repo, ['events', '--consumer', 'c1'], { env })).json.events;
    expect(read).toHaveLength(1);
    const older = connect(url);
    const younger = connect(url);
    // Two other hosts' events of the same project (a project reads its own: its scope).
    const heartbeat = async (db: ReturnType<typeof connect>, owner: string) =>
      (await db.get<{ id: number }>("INSERT INTO events (type, scope, owner, created_at) VALUES ('heartbeat', ?, ?, 0) RETURNING id", [read[0].scope, owner]))!.id;
    try {
      await older.exec('BEGIN');
      await older.get('SELECT pg_current_xact_id() AS x');
      await younger.exec('BEGIN');
      await younger.get('SELECT pg_current_xact_id() AS x');
      const smaller = await heartbeat(younger, 'younger');
      const larger = await heartbeat(older, 'older');
      await older.exec('COMMIT');
      const first = await coord(repo, ['events', '--consumer', 'c1'], { env });
      expect(first.json.events.map((event: { id: number }) => event.id)).toEqual([larger]);
      await younger.exec('COMMIT');
      const second = await coord(repo, ['events', '--consumer', 'c1'], { env });
      expect(second.json.events.map((event: { id: number }) => event.id)).toEqual([smaller]);
      expect(second.json.events[0]).not.toHaveProperty('xact');
      expect((await coord(repo, ['events', '--consumer', 'c1'], { env })).json.events).toEqual([]);
    } finally {
      older.close();
      younger.close();
    }
  });
});

describe('a reserve decided from a read snapshot', () => {
  it("sees a grant of its scope whose event id is below another scope's newer commit (ids come from a sequence, not commit order)", async () => {
    const repo = repoWithCommit();
    const other = repoWithCommit();
    const url = freshDatabaseUrl();
    const env = { IC_DB: url };
    const scope = rootCommit(repo.dir);
    // A lock row of mallory's, released: the transaction below grants it again by hand, as a grant in flight would.
    const first = await coord(repo, ['reserve', 'src/a.ts', '--owner', 'mallory'], { env });
    const lockId = first.json.locks[0].id as string;
    expect((await coord(repo, ['release', '--all', '--owner', 'mallory'], { env })).exitCode).toBe(0);

    const writer = connect(url);
    const watcher = connect(url);
    try {
      // A writer of the scope holds its lock and has taken an event id, not yet committed.
      await writer.exec('BEGIN ISOLATION LEVEL READ COMMITTED');
      expect(await writer.all('SELECT scope FROM scopes WHERE scope = ? FOR UPDATE', [scope])).toHaveLength(1);
      const id = (await writer.get<{ id: number }>("SELECT nextval('events_id_seq') AS id"))!.id;
      // Another project commits a larger id meanwhile.
      expect((await coord(other, ['reserve', 'b.txt', '--owner', 'tom'], { env })).exitCode).toBe(0);
      // A glob reserve (the snapshot path) reads, then waits for the scope's lock.
      const pending = coord(repo, ['reserve', 'src/*.ts', '--owner', 'bob'], { env });
      for (let i = 0; i < 200; i++) {
        if ((await watcher.all("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")).length > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      await writer.run('UPDATE locks SET released_at = NULL, release_reason = NULL, expires_at = floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint + 3600000 WHERE id = ?', [lockId]);
      await writer.run(
        "INSERT INTO events (id, type, lock_id, scope, owner, pattern, reason, created_at, detail) VALUES (?, 'reserved', ?, ?, 'mallory', 'src/a.ts', NULL, floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint, '{}')",
        [id, lockId, scope],
      );
      await writer.exec('COMMIT');
      const bob = await pending;
      expect(bob.exitCode, bob.stdout).toBe(1);
      expect(bob.json.error.code).toBe('CONFLICT');
      expect(bob.json.error.conflicts[0].held.owner).toBe('mallory');
    } finally {
      writer.close();
      watcher.close();
    }
  });
});

describe('waiting for the scope', () => {
  it("a writer held up by another transaction on the project's scope past IC_BUSY_TIMEOUT is BUSY (75); another project is not held up", async () => {
    const repo = repoWithCommit();
    const other = repoWithCommit();
    const url = freshDatabaseUrl();
    const env = { IC_DB: url, IC_BUSY_TIMEOUT: '300ms' };
    expect((await coord(repo, ['reserve', 'a.txt', '--owner', 'alice'], { env })).exitCode).toBe(0);
    const holder = connect(url);
    try {
      await holder.exec('BEGIN');
      expect(await holder.all('SELECT scope FROM scopes WHERE scope = ? FOR UPDATE', [rootCommit(repo.dir)])).toHaveLength(1);
      const busy = await coord(repo, ['reserve', 'b.txt', '--owner', 'bob'], { env });
      expect(busy.exitCode).toBe(75);
      expect(busy.json.error.code).toBe('BUSY');
      expect((await coord(other, ['reserve', 'b.txt', '--owner', 'bob'], { env })).exitCode).toBe(0);
      await holder.exec('ROLLBACK');
      expect((await coord(repo, ['reserve', 'b.txt', '--owner', 'bob'], { env })).exitCode).toBe(0);
    } finally {
      holder.close();
    }
  });
});

describe('the scope is the project', () => {
  it('two clones of one repository share locks; an unrelated repository does not', async () => {
    const repo = repoWithCommit();
    const clone = cloneOf(repo);
    const other = repoWithCommit();
    const env = { IC_DB: freshDatabaseUrl() };
    expect((await coord(repo, ['reserve', 'src/a.ts', '--owner', 'alice'], { env })).exitCode).toBe(0);
    expect((await coord(repo, ['lock', 'deploy', '--owner', 'alice'], { env })).exitCode).toBe(0);

    const fromClone = await coord(clone, ['reserve', 'src/a.ts', '--owner', 'bob'], { env });
    expect(fromClone.exitCode).toBe(1);
    expect(fromClone.json.error.code).toBe('CONFLICT');
    expect((await coord(clone, ['lock', 'deploy', '--owner', 'bob'], { env })).json.error.code).toBe('CONFLICT');
    expect((await coord(clone, ['list'], { env })).json.locks.map((lock: { owner: string }) => lock.owner)).toEqual(['alice', 'alice']);

    const unrelated = await coord(other, ['reserve', 'src/a.ts', '--owner', 'bob'], { env });
    expect(unrelated.exitCode, unrelated.stderr).toBe(0);
    expect((await coord(other, ['lock', 'deploy', '--owner', 'bob'], { env })).exitCode).toBe(0);
    expect(unrelated.json.locks[0].scope).toBe(rootCommit(other.dir));
  });

  it('`ic init --project KEY` names the project in git config: a fork with its own key is kept apart, clones with one key meet', async () => {
    const repo = repoWithCommit();
    const fork = cloneOf(repo);
    const env = { IC_DB: freshDatabaseUrl() };
    const named = await ic(fork, ['init', '--project', 'team/fork'], { env });
    expect(named.exitCode, named.stderr).toBe(0);
    expect(named.json).toMatchObject({ project: 'team/fork', scope: 'team/fork' });
    expect(execFileSync('git', ['-C', fork.dir, 'config', 'ic.project'], { encoding: 'utf8' }).trim()).toBe('team/fork');

    expect((await coord(repo, ['reserve', 'src/a.ts', '--owner', 'alice'], { env })).exitCode).toBe(0);
    expect((await coord(fork, ['reserve', 'src/a.ts', '--owner', 'bob'], { env })).exitCode).toBe(0); // the fork is another project

    const forkClone = cloneOf(fork); // git config is per clone: a second clone of the fork names itself the same
    expect((await ic(forkClone, ['init', '--project', 'team/fork'], { env })).exitCode).toBe(0);
    expect((await coord(forkClone, ['reserve', 'src/a.ts', '--owner', 'carol'], { env })).json.error.code).toBe('CONFLICT');
  });

  it('a key is recorded on the database: another repository cannot take it (69, its git config untouched), and a clone is told the key on init', async () => {
    const repo = repoWithCommit();
    const unrelated = repoWithCommit();
    const env = { IC_DB: freshDatabaseUrl() };
    expect((await ic(repo, ['init', '--project', 'team/app'], { env })).exitCode).toBe(0);
    const rows = await connect(env.IC_DB).all('SELECT project, root_commit FROM ic.projects');
    expect(rows).toEqual([{ project: 'team/app', root_commit: rootCommit(repo.dir) }]);

    const taken = await ic(unrelated, ['init', '--project', 'team/app'], { env });
    expect(taken.exitCode).toBe(69);
    expect(taken.json.error.message).toContain('is bound on this server to another repository');
    expect(() => execFileSync('git', ['-C', unrelated.dir, 'config', 'ic.project'], { stdio: 'ignore' })).toThrow();

    const clone = cloneOf(repo); // a new host: no key in its git config yet
    const told = await ic(clone, ['init'], { env });
    expect(told.json).toMatchObject({ ok: true, project: rootCommit(clone.dir), also_named: ['team/app'] });
    expect((await ic(clone, ['init', '--project', 'team/app'], { env })).json).toMatchObject({ ok: true, project: 'team/app' });
    expect((await ic(clone, ['init'], { env })).json.also_named).toBeUndefined();
  });

  it('a repository with no commit and no project key is refused, saying ic init --project; a bad key is refused and nothing is stored', async () => {
    const repo = makeTempRepo('ic-pg-empty-');
    cleanups.push(repo.cleanup);
    const env = { IC_DB: freshDatabaseUrl() };
    const refused = await coord(repo, ['reserve', 'a.txt', '--owner', 'alice'], { env });
    expect(refused.exitCode).toBe(65);
    expect(refused.json.error.hint).toContain('ic init --project');
    const bad = await ic(repo, ['init', '--project', 'has space'], { env });
    expect(bad.exitCode).toBe(65);
    expect(() => execFileSync('git', ['-C', repo.dir, 'config', 'ic.project'], { stdio: 'ignore' })).toThrow();
    // git's own ways of setting config count too (here its environment variables): what a CI runner can set
    const fromEnv = await coord(repo, ['reserve', 'a.txt', '--owner', 'alice'], { env: { ...env, GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'ic.project', GIT_CONFIG_VALUE_0: 'from-env' } });
    expect(fromEnv.exitCode, fromEnv.stderr).toBe(0);
    expect(fromEnv.json.locks[0].scope).toBe('from-env');
    expect((await ic(repo, ['init', '--project', 'p1'], { env })).exitCode).toBe(0);
    expect((await coord(repo, ['reserve', 'a.txt', '--owner', 'alice'], { env })).json.locks[0].scope).toBe('p1');
  });

  it('--scope DIR is <project>:<dir below the work tree>, the same in every clone', async () => {
    const repo = repoWithCommit();
    execFileSync('mkdir', ['-p', join(repo.dir, 'pkg', 'a')]);
    const clone = cloneOf(repo);
    execFileSync('mkdir', ['-p', join(clone.dir, 'pkg', 'a')]);
    const env = { IC_DB: freshDatabaseUrl() };
    const mine = await coord(repo, ['reserve', 'x.ts', '--owner', 'alice', '--scope', 'pkg/a'], { env });
    expect(mine.exitCode, mine.stderr).toBe(0);
    expect(mine.json.locks[0].scope).toBe(`${rootCommit(repo.dir)}:pkg/a`);
    expect((await coord(clone, ['reserve', 'x.ts', '--owner', 'bob', '--scope', 'pkg/a'], { env })).json.error.code).toBe('CONFLICT');
    expect((await coord(clone, ['reserve', 'x.ts', '--owner', 'bob'], { env })).exitCode).toBe(0); // the project's own scope is another
  });
});

describe("the server's clock decides", () => {
  const HOUR = 3_600_000;
  const skewed = (offsetMs: number) => ({ IC_TEST_CLOCK: '1', IC_NOW: new Date(Date.now() + offsetMs).toISOString(), IC_LOCK_DELAY: '0s' });

  it('clients whose clocks are 2 h apart: a lock taken by one blocks the other, and expires on the server clock', async () => {
    const repo = repoWithCommit();
    const clone = cloneOf(repo);
    const db = freshDatabaseUrl();
    // Host A runs 2 h behind: by its own clock its 10-minute lock would have lapsed long ago for host B (2 h ahead).
    const taken = await coord(repo, ['reserve', 'src/a.ts', '--owner', 'alice', '--ttl', '10m'], { env: { IC_DB: db, ...skewed(-2 * HOUR) } });
    expect(taken.exitCode, taken.stderr).toBe(0);
    expect(Math.abs(Date.parse(taken.json.locks[0].created_at) - Date.now())).toBeLessThan(60_000); // stamped by the server
    const blocked = await coord(clone, ['reserve', 'src/a.ts', '--owner', 'bob'], { env: { IC_DB: db, ...skewed(2 * HOUR) } });
    expect(blocked.exitCode).toBe(1);
    expect(blocked.json.error.code).toBe('CONFLICT');

    // Host B (2 h ahead) takes a 2 s lock; host A (2 h behind) is refused while it lives and granted once the server's clock passes it.
    const short = await coord(clone, ['reserve', 'src/b.ts', '--owner', 'bob', '--ttl', '2s'], { env: { IC_DB: db, ...skewed(2 * HOUR) } });
    expect(short.exitCode, short.stderr).toBe(0);
    expect((await coord(repo, ['reserve', 'src/b.ts', '--owner', 'alice'], { env: { IC_DB: db, ...skewed(-2 * HOUR) } })).json.error?.code).toBe('CONFLICT');
    const expiresAt = Date.parse(short.json.locks[0].expires_at);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt - Date.now()) + 200));
    const granted = await coord(repo, ['reserve', 'src/b.ts', '--owner', 'alice'], { env: { IC_DB: db, ...skewed(-2 * HOUR) } });
    expect(granted.exitCode, granted.stderr + granted.stdout).toBe(0);
  });

  it('tests may move time with IC_TEST_PG_CLIENT_CLOCK=1 (with IC_TEST_CLOCK=1): IC_NOW is then the clock, as on SQLite', async () => {
    const repo = repoWithCommit();
    const env = { IC_DB: freshDatabaseUrl(), IC_TEST_CLOCK: '1', IC_TEST_PG_CLIENT_CLOCK: '1', IC_LOCK_DELAY: '0s' };
    const t0 = Date.parse('2026-11-26T10:00:00Z');
    const taken = await coord(repo, ['reserve', 'a.txt', '--owner', 'alice', '--ttl', '10m'], { env: { ...env, IC_NOW: String(t0) } });
    expect(taken.json.locks[0].created_at).toMatch(/^2026-11-26T10:00:0\d/);
    expect((await coord(repo, ['reserve', 'a.txt', '--owner', 'bob'], { env: { ...env, IC_NOW: String(t0 + 5 * 60_000) } })).exitCode).toBe(1);
    expect((await coord(repo, ['reserve', 'a.txt', '--owner', 'bob'], { env: { ...env, IC_NOW: String(t0 + 11 * 60_000) } })).exitCode).toBe(0);
  });
});

describe('hooks', () => {
  it("an agent's edit hook reserves the file on the server; another session's edit of it in another clone is denied", async () => {
    const repo = repoWithCommit();
    const clone = cloneOf(repo);
    const env = { IC_DB: freshDatabaseUrl() };
    const edit = (dir: string, session: string) =>
      JSON.stringify({
        session_id: session,
        hook_event_name: 'PreToolUse',
        tool_name: 'Edit',
        tool_use_id: `t-${session}`,
        cwd: dir,
        tool_input: { file_path: join(dir, 'src', 'c.ts'), old_string: '', new_string: 'y' },
      });
    const first = await coord(repo, ['hook', 'claude-pre-edit'], { env, input: edit(repo.dir, 'one') });
    expect(first.exitCode).toBe(0);
    expect(first.stdout).not.toContain('deny');
    expect(first.stdout).not.toContain('could not check');
    const listed = await coord(repo, ['list'], { env });
    expect(listed.json.locks.map((lock: { pattern: string; owner: string }) => [lock.pattern, lock.owner])).toEqual([['src/c.ts', 'claude-one']]);
    const second = await coord(clone, ['hook', 'claude-pre-edit'], { env, input: edit(clone.dir, 'two') });
    expect(second.exitCode).toBe(0);
    expect(JSON.parse(second.stdout).hookSpecificOutput.permissionDecision).toBe('deny');
  });
});

describe('the shell fast path is off', () => {
  it('a shell hook takes the long way to the server (it reserves what the command writes), and no digest or marker file appears', async () => {
    const repo = repoWithCommit();
    const url = freshDatabaseUrl();
    const env = { IC_DB: url };
    const edit = JSON.stringify({
      session_id: 's1',
      hook_event_name: 'PreToolUse',
      tool_name: 'Edit',
      tool_use_id: 'e1',
      cwd: repo.dir,
      tool_input: { file_path: join(repo.dir, 'a.txt'), old_string: '', new_string: 'y' },
    });
    expect((await coord(repo, ['hook', 'claude-pre-edit'], { env, input: edit })).exitCode).toBe(0);
    const shell = JSON.stringify({ session_id: 's1', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_use_id: 'c1', cwd: repo.dir, tool_input: { command: 'echo hi > b.txt' } });
    const run = await coord(repo, ['hook', 'claude-pre-shell'], { env, input: shell });
    expect(run.exitCode).toBe(0);
    expect(run.stdout).not.toContain('could not check');
    // The full hook ran against the server: it reserved the file the command writes.
    const held = (await coord(repo, ['list'], { env })).json.locks as { pattern: string; reason: string }[];
    expect(held.find((lock) => lock.pattern === 'b.txt')?.reason).toContain('tool call c1');
    expect(existsSync(join(repo.dir, '.git', 'ic'))).toBe(false);
    expect(readdirSync(repo.dir).filter((name) => name.startsWith('postgres'))).toEqual([]);
  });
});
