import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { execa } from 'execa';
import { COORD_BIN, cleanEnv, coord, databaseExists, ic, makeTempRepo, type TempRepo } from '../support/cli';
import { sqliteOnly } from '../support/engine';

const RFC3339_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let repo: TempRepo;
beforeEach(() => {
  repo = makeTempRepo();
});
afterEach(() => repo.cleanup());

const as = (owner: string, extra: Record<string, string> = {}) => ({ env: { IC_OWNER: owner, ...extra } });

describe('reserve', () => {
  it('grants a lock with every contract field and creates the database on first write', async () => {
    expect(databaseExists(repo)).toBe(false);
    const result = await coord(repo, ['reserve', 'src/**', '--reason', 'refactor'], as('alice'));
    expect(result.exitCode).toBe(0);
    expect(result.json.ok).toBe(true);
    const [lock] = result.json.locks;
    expect(Object.keys(lock).sort()).toEqual(['created_at', 'expires_at', 'id', 'mode', 'owner', 'pattern', 'reason', 'release_reason', 'released_at', 'scope', 'token', 'type'].sort());
    expect(lock).toMatchObject({ type: 'file', scope: repo.scope, pattern: 'src/**', owner: 'alice', mode: 'exclusive', reason: 'refactor', released_at: null, release_reason: null });
    expect(lock.id).toMatch(/^[0-9a-z]{8}$/);
    expect(Number.isInteger(lock.token)).toBe(true);
    expect(lock.created_at).toMatch(RFC3339_MS);
    expect(Date.parse(lock.expires_at) - Date.parse(lock.created_at)).toBe(15 * 60_000);
    expect(databaseExists(repo)).toBe(true);
  });

  it('reports a conflict between overlapping patterns of two owners, with an example path', async () => {
    const held = await coord(repo, ['reserve', 'src/**'], as('alice'));
    const result = await coord(repo, ['reserve', 'src/app/*.ts'], as('bob'));
    expect(result.exitCode).toBe(1);
    expect(result.json.ok).toBe(false);
    expect(result.json.error.code).toBe('CONFLICT');
    expect(result.json.error.conflicts).toHaveLength(1);
    const [conflict] = result.json.error.conflicts;
    expect(conflict.pattern).toBe('src/app/*.ts');
    expect(conflict.held.id).toBe(held.json.locks[0].id);
    expect(conflict.held.owner).toBe('alice');
    expect(conflict.example).toMatch(/^src\/app\/[^/]*\.ts$/);
    expect(result.json.error.message).toContain('alice');
  });

  it('grants disjoint patterns to different owners', async () => {
    expect((await coord(repo, ['reserve', '*.ts'], as('alice'))).exitCode).toBe(0);
    expect((await coord(repo, ['reserve', '*.js'], as('bob'))).exitCode).toBe(0);
    expect((await coord(repo, ['reserve', 'docs/**'], as('carol'))).exitCode).toBe(0);
  });

  it('lets shared locks coexist and refuses exclusive against shared', async () => {
    expect((await coord(repo, ['reserve', '--shared', 'schema/**'], as('alice'))).exitCode).toBe(0);
    expect((await coord(repo, ['reserve', '--shared', 'schema/a.sql'], as('bob'))).exitCode).toBe(0);
    const exclusive = await coord(repo, ['reserve', 'schema/a.sql'], as('carol'));
    expect(exclusive.exitCode).toBe(1);
    expect(exclusive.json.error.conflicts.map((c: any) => c.held.owner).sort()).toEqual(['alice', 'bob']);
  });

  it('grants all patterns or none', async () => {
    await coord(repo, ['reserve', 'src/a.ts'], as('alice'));
    const result = await coord(repo, ['reserve', 'docs/x.md', 'src/a.ts', 'lib/**'], as('bob'));
    expect(result.exitCode).toBe(1);
    const bobs = await coord(repo, ['list', '--owner', 'bob']);
    expect(bobs.json.locks).toEqual([]);
  });

  it('renews an identical reservation in place (same id and token, later expiry)', async () => {
    const first = await coord(repo, ['reserve', 'src/a.ts', '--ttl', '1m'], as('alice'));
    const second = await coord(repo, ['reserve', 'src/a.ts', '--ttl', '10m'], as('alice'));
    expect(second.json.locks[0].id).toBe(first.json.locks[0].id);
    expect(second.json.locks[0].token).toBe(first.json.locks[0].token);
    expect(Date.parse(second.json.locks[0].expires_at)).toBeGreaterThan(Date.parse(first.json.locks[0].expires_at));
    const all = await coord(repo, ['list']);
    expect(all.json.locks).toHaveLength(1);
  });

  it('lets the same owner hold overlapping patterns', async () => {
    expect((await coord(repo, ['reserve', 'src/**'], as('alice'))).exitCode).toBe(0);
    expect((await coord(repo, ['reserve', 'src/a.ts'], as('alice'))).exitCode).toBe(0);
  });

  it('maps symlinks, ./, a/../ and absolute spellings of one file to one key', async () => {
    mkdirSync(join(repo.dir, 'real'));
    writeFileSync(join(repo.dir, 'real', 'a.ts'), '');
    symlinkSync(join(repo.dir, 'real'), join(repo.dir, 'link'));
    const first = await coord(repo, ['reserve', 'link/a.ts'], as('alice'));
    expect(first.json.locks[0].pattern).toBe('real/a.ts');
    for (const alias of ['real/a.ts', './real/a.ts', 'real/../real/a.ts', join(repo.dir, 'link', 'a.ts'), join(repo.dir, 'real/a.ts')]) {
      const result = await coord(repo, ['reserve', alias], as('bob'));
      expect(result.exitCode, alias).toBe(1);
      expect(result.json.error.code).toBe('CONFLICT');
    }
  });

  it('treats a literal directory name and a trailing slash as the whole directory', async () => {
    mkdirSync(join(repo.dir, 'pkg'));
    const dir = await coord(repo, ['reserve', 'pkg'], as('alice'));
    expect(dir.json.locks[0].pattern).toBe('pkg/**');
    const slash = await coord(repo, ['reserve', 'other/'], as('alice'));
    expect(slash.json.locks[0].pattern).toBe('other/**');
    expect((await coord(repo, ['reserve', 'pkg/deep/file.ts'], as('bob'))).exitCode).toBe(1);
  });

  it('waits until the holder releases, and times out otherwise', async () => {
    await coord(repo, ['reserve', 'src/a.ts'], as('alice'));
    const timedOut = await coord(repo, ['reserve', 'src/a.ts', '--wait', '300ms'], as('bob'));
    expect(timedOut.exitCode).toBe(1);
    expect(timedOut.json.error.code).toBe('TIMEOUT');
    const conflicts = async () => (await coord(repo, ['events'])).json.events.filter((e: any) => e.type === 'conflict' && e.owner === 'bob').length;
    const refusedBefore = await conflicts();
    const waiter = coord(repo, ['reserve', 'src/a.ts', '--wait', '30s'], as('bob'));
    // Released once bob is waiting (its first denied try is on record): no guess at how long a start takes.
    while ((await conflicts()) === refusedBefore) await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await coord(repo, ['release', '--all'], as('alice'))).exitCode).toBe(0);
    const granted = await waiter;
    expect(granted.exitCode).toBe(0);
    expect(granted.json.locks[0].owner).toBe('bob');
    const events = await coord(repo, ['events']);
    expect(events.json.events.filter((e: any) => e.type === 'waited')).toHaveLength(1);
  });
});

describe('check', () => {
  it('answers without writing anything', async () => {
    await coord(repo, ['reserve', 'src/**'], as('alice'));
    const before = await coord(repo, ['events']);
    const busy = await coord(repo, ['check', 'src/a.ts'], as('bob'));
    expect(busy.exitCode).toBe(1);
    expect(busy.json).toMatchObject({ ok: true, free: false });
    expect(busy.json.conflicts[0].held.owner).toBe('alice');
    const free = await coord(repo, ['check', 'lib/a.ts'], as('bob'));
    expect(free.exitCode).toBe(0);
    expect(free.json).toEqual({ ok: true, free: true, conflicts: [] });
    const own = await coord(repo, ['check', 'src/a.ts'], as('alice'));
    expect(own.json.free).toBe(true);
    const anyone = await coord(repo, ['check', 'src/a.ts']);
    expect(anyone.json.free).toBe(false);
    const after = await coord(repo, ['events']);
    expect(after.json.events).toEqual(before.json.events);
  });
});

describe('release', () => {
  it('refuses another owner, allows --force and records it', async () => {
    const held = await coord(repo, ['reserve', 'src/a.ts'], as('alice'));
    const id = held.json.locks[0].id;
    const refused = await coord(repo, ['release', id], as('bob'));
    expect(refused.exitCode).toBe(1);
    expect(refused.json.error.code).toBe('NOT_OWNER');
    expect(refused.json.not_released).toEqual([{ id, why: 'not_owner', owner: 'alice' }]);
    const forced = await coord(repo, ['release', id, '--force', '--reason', 'alice is gone'], as('bob'));
    expect(forced.exitCode).toBe(0);
    expect(forced.json.released[0]).toMatchObject({ id, release_reason: 'force_released' });
    const events = await coord(repo, ['events']);
    expect(events.json.events.at(-1)).toMatchObject({ type: 'force_released', lock_id: id, owner: 'alice', reason: 'alice is gone' });
    const again = await coord(repo, ['release', id], as('alice'));
    expect(again.json.not_released).toEqual([{ id, why: 'already_released' }]);
  });

  it('reports per-id reasons and releases by pattern and --all', async () => {
    const a = await coord(repo, ['reserve', 'src/a.ts'], as('alice'));
    await coord(repo, ['reserve', 'src/b.ts', 'docs/**'], as('alice'));
    const mixed = await coord(repo, ['release', a.json.locks[0].id, 'zzzzzzzz'], as('alice'));
    expect(mixed.exitCode).toBe(0);
    expect(mixed.json.not_released).toEqual([{ id: 'zzzzzzzz', why: 'not_found' }]);
    const byPattern = await coord(repo, ['release', '--pattern', './src/b.ts'], as('alice'));
    expect(byPattern.json.released.map((l: any) => l.pattern)).toEqual(['src/b.ts']);
    const all = await coord(repo, ['release', '--all'], as('alice'));
    expect(all.json.released.map((l: any) => l.pattern)).toEqual(['docs/**']);
    const none = await coord(repo, ['release', '--all'], as('alice'));
    expect(none.exitCode).toBe(1);
  });
});

describe('renew, list, verify', () => {
  it('renews the owner’s locks and keeps tokens', async () => {
    const held = await coord(repo, ['reserve', 'src/a.ts', '--ttl', '1m'], as('alice'));
    const renewed = await coord(repo, ['renew', '--ttl', '2h'], as('alice'));
    expect(renewed.exitCode).toBe(0);
    expect(renewed.json.locks[0].token).toBe(held.json.locks[0].token);
    expect(Date.parse(renewed.json.locks[0].expires_at) - Date.now()).toBeGreaterThan(3_600_000);
    const notMine = await coord(repo, ['renew', held.json.locks[0].id], as('bob'));
    expect(notMine.exitCode).toBe(1);
    expect(notMine.json.not_renewed).toEqual([{ id: held.json.locks[0].id, why: 'not_owner' }]);
  });

  it('lists active, expiring, by owner and type, and across scopes', async () => {
    await coord(repo, ['reserve', 'a.ts', '--ttl', '1m'], as('alice'));
    await coord(repo, ['reserve', 'b.ts', '--ttl', '1h'], as('bob'));
    const released = await coord(repo, ['reserve', 'c.ts'], as('carol'));
    await coord(repo, ['release', released.json.locks[0].id], as('carol'));
    expect((await coord(repo, ['list'])).json.locks).toHaveLength(3);
    expect((await coord(repo, ['list', '--active'])).json.locks).toHaveLength(2);
    expect((await coord(repo, ['list', '--expiring', '5m'])).json.locks.map((l: any) => l.pattern)).toEqual(['a.ts']);
    expect((await coord(repo, ['list', '--owner', 'bob'])).json.locks.map((l: any) => l.pattern)).toEqual(['b.ts']);
    expect((await coord(repo, ['list', '--type', 'named'])).json.locks).toEqual([]);
    mkdirSync(join(repo.dir, 'sub'));
    await coord(repo, ['reserve', 'x.ts', '--scope', 'sub'], as('dave'));
    expect((await coord(repo, ['list', '--active'])).json.locks).toHaveLength(2);
    expect((await coord(repo, ['list', '--active', '--all-scopes'])).json.locks).toHaveLength(3);
    const bad = await coord(repo, ['list', '--type', 'nope']);
    expect(bad.exitCode).toBe(64);
    // `--type lock` is `named`: the locks `coord lock` takes.
    await coord(repo, ['lock', 'tests'], as('erin'));
    expect((await coord(repo, ['list', '--type', 'lock'])).json.locks.map((l: any) => [l.type, l.pattern])).toEqual([['named', 'tests']]);
  });

  it('verifies a fence while the lock is active and not after', async () => {
    const held = await coord(repo, ['reserve', 'src/a.ts'], as('alice'));
    const { id, token } = held.json.locks[0];
    const valid = await coord(repo, ['verify', id, String(token)]);
    expect(valid.exitCode).toBe(0);
    expect(valid.json.valid).toBe(true);
    const wrong = await coord(repo, ['verify', id, String(token + 1)]);
    expect(wrong.exitCode).toBe(1);
    expect(wrong.json.why).toBe('token_mismatch');
    const later = await coord(repo, ['verify', id, String(token)], { env: { IC_NOW: new Date(Date.now() + 16 * 60_000).toISOString() } });
    expect(later.exitCode).toBe(1);
    expect(later.json.why).toBe('expired');
  });

  it('gives each database its own ids: a fence checked against the wrong database does not pass', async () => {
    const other = makeTempRepo();
    try {
      const here = (await coord(repo, ['reserve', 'deploy.lock'], as('alice'))).json.locks[0];
      const there = (await coord(other, ['reserve', 'deploy.lock'], as('alice'))).json.locks[0];
      expect(there.token).toBe(here.token); // both databases' first grant
      expect(there.id).not.toBe(here.id);
      const crossed = await coord(other, ['verify', here.id, String(here.token)]);
      expect(crossed.exitCode).toBe(1);
      expect(crossed.json.why).toBe('not_found');
    } finally {
      other.cleanup();
    }
  });

  it('gives fencing tokens that strictly increase across the database', async () => {
    const tokens: number[] = [];
    for (const [owner, pattern] of [
      ['a', 'x'],
      ['b', 'y'],
      ['a', 'z'],
      ['c', 'w'],
    ] as const) {
      tokens.push((await coord(repo, ['reserve', pattern], as(owner))).json.locks[0].token);
    }
    expect([...tokens].sort((x, y) => x - y)).toEqual(tokens);
    expect(new Set(tokens).size).toBe(tokens.length);
    // A grant's token is the id of its `reserved` event: the event log alone says which grant came first.
    const reserved = (await coord(repo, ['events'])).json.events.filter((e: any) => e.type === 'reserved');
    expect(reserved.map((e: any) => e.id)).toEqual(tokens);
  });
});

describe('time and expiry', () => {
  it('does not count an expired lock as held, before any sweep', async () => {
    await coord(repo, ['reserve', 'src/a.ts', '--ttl', '1m'], as('alice'));
    const later = new Date(Date.now() + 5 * 60_000).toISOString();
    const result = await coord(repo, ['reserve', 'src/a.ts'], { env: { IC_OWNER: 'bob', IC_NOW: later, IC_LOCK_DELAY: '0' } });
    expect(result.exitCode).toBe(0);
  });
});

describe('exit codes and bad input', () => {
  const cases: [string, string[], Record<string, string>, number, string | null][] = [
    ['unknown flag', ['reserve', 'a', '--bogus'], { IC_OWNER: 'a' }, 64, 'USAGE'],
    ['missing argument', ['reserve'], { IC_OWNER: 'a' }, 64, 'USAGE'],
    ['unknown command', ['frobnicate'], {}, 64, 'USAGE'],
    ['missing owner', ['reserve', 'a.ts'], {}, 64, 'USAGE'],
    ['ttl zero', ['reserve', 'a.ts', '--ttl', '0'], { IC_OWNER: 'a' }, 65, 'INVALID_INPUT'],
    ['ttl negative', ['reserve', 'a.ts', '--ttl=-5m'], { IC_OWNER: 'a' }, 65, 'INVALID_INPUT'],
    ['ttl too long', ['reserve', 'a.ts', '--ttl', '25h'], { IC_OWNER: 'a' }, 65, 'INVALID_INPUT'],
    ['ttl not a duration', ['reserve', 'a.ts', '--ttl', 'abc'], { IC_OWNER: 'a' }, 65, 'INVALID_INPUT'],
    ['control character owner', ['reserve', 'a.ts'], { IC_OWNER: 'a\u0007b' }, 65, 'INVALID_INPUT'],
    ['owner too long', ['reserve', 'a.ts'], { IC_OWNER: 'x'.repeat(129) }, 65, 'INVALID_INPUT'],
    ['extglob', ['reserve', '+(a|b).ts'], { IC_OWNER: 'a' }, 65, 'INVALID_PATTERN'],
    ['unbalanced class', ['reserve', 'src/[ab.ts'], { IC_OWNER: 'a' }, 65, 'INVALID_PATTERN'],
    ['outside scope', ['reserve', '../elsewhere.ts'], { IC_OWNER: 'a' }, 65, 'OUTSIDE_SCOPE'],
    ['absolute outside scope', ['reserve', '/etc/passwd'], { IC_OWNER: 'a' }, 65, 'OUTSIDE_SCOPE'],
    ['too complex', ['reserve', `${'*a'.repeat(600)}`], { IC_OWNER: 'a' }, 65, 'TOO_COMPLEX'],
    ['bad token', ['verify', 'abcdefgh', 'x'], {}, 65, 'INVALID_INPUT'],
  ];
  it.each(cases)('%s', async (_name, args, env, exitCode, code) => {
    const result = await coord(repo, args, { env });
    expect(result.exitCode).toBe(exitCode);
    expect(result.json.ok).toBe(false);
    if (code) expect(result.json.error.code).toBe(code);
    expect(result.stdout).not.toMatch(/\n\s+at /);
    expect(databaseExists(repo)).toBe(false);
  });

  sqliteOnly.it('refuses a database with a newer schema and leaves it untouched', async () => {
    await coord(repo, ['reserve', 'a.ts'], as('alice'));
    const db = new Database(repo.db);
    db.pragma('user_version = 999');
    db.close();
    const before = readFileSync(repo.db);
    const result = await coord(repo, ['reserve', 'b.ts'], as('alice'));
    expect(result.exitCode).toBe(69);
    expect(result.json.error.code).toBe('DB_UNAVAILABLE');
    expect(readFileSync(repo.db).equals(before)).toBe(true);
  });

  sqliteOnly.it('refuses a file that is not a database', async () => {
    mkdirSync(dirname(repo.db), { recursive: true });
    writeFileSync(repo.db, 'this is not sqlite, just text that is long enough to look like a header '.repeat(20));
    const result = await coord(repo, ['list']);
    expect(result.exitCode).toBe(69);
    expect(result.json.error.code).toBe('DB_UNAVAILABLE');
  });

  sqliteOnly.it('says BUSY (75) when the write lock is held past the busy timeout', async () => {
    await coord(repo, ['reserve', 'a.ts'], as('alice'));
    const db = new Database(repo.db);
    db.exec('BEGIN IMMEDIATE');
    try {
      const result = await coord(repo, ['reserve', 'b.ts'], { env: { IC_OWNER: 'bob', IC_BUSY_TIMEOUT: '200ms' } });
      expect(result.exitCode).toBe(75);
      expect(result.json.error.code).toBe('BUSY');
    } finally {
      db.exec('ROLLBACK');
      db.close();
    }
  });

  it('never exits 2 for usage errors of any kind', async () => {
    for (const args of [['coord', 'reserve'], ['coord', '--nope'], ['--nope'], ['coord', 'list', 'extra', 'args']]) {
      const result = await ic(repo, args);
      expect(result.exitCode, args.join(' ')).not.toBe(2);
    }
  });
});

describe('broken pipes', () => {
  it('exits quietly when the reader of stdout has gone away', async () => {
    // 30 locks to list, taken in one call (30 calls one after another outran the test's 30 s at load 16).
    expect((await coord(repo, ['reserve', ...Array.from({ length: 30 }, (_, i) => `f${i}.ts`)], as('alice'))).exitCode).toBe(0);
    const child = execa(COORD_BIN, ['list'], { cwd: repo.dir, env: cleanEnv(), extendEnv: false, reject: false, stdout: 'pipe' });
    child.stdout!.destroy();
    const result = await child;
    expect(result.exitCode).toBe(0);
    expect(String(result.stderr)).toBe('');
  });
});

describe('command shapes', () => {
  it('`coord X` is `ic coord X` is `ic coordination X`', async () => {
    const a = await coord(repo, ['overlap', 'src/**', 'src/a.ts']);
    const b = await ic(repo, ['coord', 'overlap', 'src/**', 'src/a.ts']);
    const c = await ic(repo, ['coordination', 'overlap', 'src/**', 'src/a.ts']);
    expect(a.json).toEqual({ ok: true, overlap: true, example: 'src/a.ts', a: 'src/**', b: 'src/a.ts' });
    expect(b.json).toEqual(a.json);
    expect(c.json).toEqual(a.json);
    const no = await coord(repo, ['overlap', '*.ts', '*.js']);
    expect(no.exitCode).toBe(0);
    expect(no.json.overlap).toBe(false);
    expect(no.json.example).toBeUndefined();
  });

  it('prints help and version with exit 0', async () => {
    const help = await ic(repo, ['--help']);
    expect(help.exitCode).toBe(0);
    expect(help.stdout).toContain('coordination');
    const coordHelp = await ic(repo, ['coord', '--help']);
    expect(coordHelp.exitCode).toBe(0);
    expect(coordHelp.stdout).toContain('reserve');
    const version = await ic(repo, ['--version']);
    expect(version.exitCode).toBe(0);
    expect(version.stdout.trim()).toBe(JSON.parse(readFileSync(join(__dirname, '../../package.json'), 'utf8')).version);
  });

  sqliteOnly.it('reads answer from an empty database without creating the file', async () => {
    const result = await coord(repo, ['list', '--active']);
    expect(result.json).toEqual({ ok: true, locks: [] });
    expect(databaseExists(repo)).toBe(false);
  });

  sqliteOnly.it('`ic init` creates the database in the git common dir, and again is a no-op', async () => {
    const first = await ic(repo, ['init']);
    expect(first.exitCode).toBe(0);
    expect(first.json).toMatchObject({ ok: true, db: repo.db, schema_version: expect.any(Number) });
    expect(existsSync(repo.db)).toBe(true);
    expect((await ic(repo, ['init'])).exitCode).toBe(0);
    expect(existsSync(join(repo.dir, '.ic'))).toBe(false);
  });

  sqliteOnly.it('finds the repository database from a subdirectory and honours IC_DB and --db', async () => {
    await coord(repo, ['reserve', 'a.ts'], as('alice'));
    mkdirSync(join(repo.dir, 'deep', 'er'), { recursive: true });
    const nested = await coord(repo, ['list'], { cwd: join(repo.dir, 'deep', 'er') });
    expect(nested.json.locks).toHaveLength(1);
    const other = join(repo.dir, 'other.db');
    await coord(repo, ['reserve', 'b.ts', '--db', other], as('alice'));
    expect((await coord(repo, ['list', '--db', other])).json.locks.map((l: any) => l.pattern)).toEqual(['b.ts']);
    expect((await coord(repo, ['list'], { env: { IC_DB: other } })).json.locks.map((l: any) => l.pattern)).toEqual(['b.ts']);
  });
});
