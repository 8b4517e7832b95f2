// Findings 7, 8 and 9 of the second hardening round: a poisoned clock, imports of what is not ic's, and
// a stall threshold chosen by the taker. Each asserts the exit code, one JSON document, and what is stored.
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sweepIndexFiles } from '../../src/coord/private-index';
import { IC_APPLICATION_ID } from '../../src/store/application-id';
import { coord, ic, makeTempRepo, type RunResult, type TempRepo } from '../support/cli';

const as = (owner: string, env: Record<string, string> = {}) => ({ env: { IC_OWNER: owner, ...env } });
const digest = (path: string) => (existsSync(path) ? createHash('sha256').update(readFileSync(path)).digest('hex') : 'absent');

function expectClean(result: RunResult, exitCode: number, code?: string): void {
  expect(result.exitCode, `${result.stdout}${result.stderr}`).toBe(exitCode);
  expect(result.stdout.trim().split('\n')).toHaveLength(1);
  if (code) expect(result.json.error.code).toBe(code);
  expect(`${result.stdout}${result.stderr}`).not.toMatch(/\n\s+at .+:\d+:\d+/);
}

let repo: TempRepo;
beforeEach(() => {
  repo = makeTempRepo('ic-poison-');
});
afterEach(() => repo.cleanup());

describe('import of what is not ic’s', () => {
  // The 0.1 layout (schema 2, no application id) with the given live rows.
  function legacyDb(path: string, rows: { owner: string; pattern: string; type?: string; scope?: string; reason?: string | null }[], version = 2): string {
    const db = new Database(path);
    db.exec(`CREATE TABLE locks (seq INTEGER PRIMARY KEY, id TEXT NOT NULL, token INTEGER NOT NULL, type TEXT NOT NULL, scope TEXT NOT NULL, pattern TEXT NOT NULL,
      base TEXT NOT NULL, owner TEXT NOT NULL, mode TEXT NOT NULL, reason TEXT, created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, ttl_ms INTEGER NOT NULL,
      released_at INTEGER, release_reason TEXT); PRAGMA user_version = ${version};`);
    const insert = db.prepare('INSERT INTO locks (id, token, type, scope, pattern, base, owner, mode, reason, created_at, expires_at, ttl_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
    rows.forEach((row, i) =>
      insert.run(`old${i}`, i + 1, row.type ?? 'file', row.scope ?? repo.dir, row.pattern, row.pattern, row.owner, 'exclusive', row.reason ?? null, Date.now(), Date.now() + 600_000, 900_000),
    );
    db.close();
    return path;
  }

  const nothingCreated = () => expect(existsSync(repo.db)).toBe(false);

  it('refuses a SQLite file with a locks table that ic did not write, leaving it unchanged and creating no database', async () => {
    const path = legacyDb(join(repo.dir, 'other.db'), [{ owner: 'alice', pattern: 'a.ts' }], 0);
    const before = digest(path);
    const result = await ic(repo, ['init', '--import', path]);
    expectClean(result, 65, 'INVALID_INPUT');
    expect(result.json.error.message).toMatch(/not an ic database/);
    expect(digest(path)).toBe(before);
    expect(existsSync(`${path}.imported`)).toBe(false);
    nothingCreated();
  });

  it('refuses an ic database of a newer schema', async () => {
    const path = join(repo.dir, 'newer.db');
    const db = new Database(path);
    db.exec(`CREATE TABLE locks (type TEXT, scope TEXT, pattern TEXT, owner TEXT, mode TEXT, reason TEXT, expires_at INTEGER, released_at INTEGER, token INTEGER);
      PRAGMA user_version = 99; PRAGMA application_id = ${IC_APPLICATION_ID};`);
    db.close();
    const before = digest(path);
    const result = await ic(repo, ['init', '--import', path]);
    expectClean(result, 65, 'INVALID_INPUT');
    expect(result.json.error).toMatchObject({ schema_version: 99 });
    expect(digest(path)).toBe(before);
    nothingCreated();
  });

  it.each([
    ['an empty owner', { owner: '', pattern: 'a.ts' }],
    ['an owner with a NUL', { owner: 'h\u0000x', pattern: 'a.ts' }],
    ['an owner with a bidi override', { owner: 'al\u202Eice', pattern: 'a.ts' }],
    ['a pattern climbing out of the project', { owner: 'alice', pattern: '../../etc/z' }],
    ['an absolute pattern outside the project', { owner: 'alice', pattern: '/abs/q' }],
    ['a scope that is not this project', { owner: 'alice', pattern: 'a.ts', scope: '/etc' }],
    ['a claim item with a control character', { owner: 'alice', pattern: 'bd\u0007', type: 'claim' }],
  ])('refuses a row with %s: no row lands, even the good ones before it, and no database is created', async (_, bad) => {
    mkdirSync(join(repo.dir, '.ic'));
    const path = legacyDb(join(repo.dir, '.ic', 'ic.db'), [{ owner: 'alice', pattern: 'good.ts' }, bad]);
    const before = digest(path);
    const result = await ic(repo, ['init', '--import', path]);
    expectClean(result, 65, 'INVALID_INPUT');
    expect(result.json.error).toMatchObject({ row: 2 });
    expect(result.json.error.message).toMatch(/nothing was imported/);
    expect(digest(path)).toBe(before);
    nothingCreated();
    // With a database already there, it stays as it was: the good row did not land either.
    expect((await coord(repo, ['reserve', 'x.ts'], as('bob'))).exitCode).toBe(0);
    expectClean(await ic(repo, ['init', '--import', path]), 65, 'INVALID_INPUT');
    expect((await coord(repo, ['list'])).json.locks.map((l: any) => l.pattern)).toEqual(['x.ts']);
  });

  // A WAL database whose pages are all in its -wal (the main file's header has no schema yet).
  function foreignWalDb(path: string): void {
    const source = join(repo.dir, 'source.db');
    const db = new Database(source);
    db.pragma('journal_mode = WAL');
    db.pragma('wal_autocheckpoint = 0');
    db.exec('CREATE TABLE locks (x); INSERT INTO locks VALUES (1)');
    copyFileSync(source, path); // while open: the -wal holds everything
    copyFileSync(`${source}-wal`, `${path}-wal`);
    db.close();
  }

  it('leaves a foreign WAL database byte-identical, with its -wal, through a refused reserve, doctor and import', async () => {
    const path = join(repo.dir, 'foreign.db');
    foreignWalDb(path);
    const before = [digest(path), digest(`${path}-wal`)];
    expect(before[1]).not.toBe('absent');
    expectClean(await coord(repo, ['reserve', 'a.ts'], as('alice', { IC_DB: path })), 69, 'DB_UNAVAILABLE');
    expect([digest(path), digest(`${path}-wal`)]).toEqual(before);
    await ic(repo, ['doctor'], { env: { IC_DB: path } });
    expect([digest(path), digest(`${path}-wal`)]).toEqual(before);
    expectClean(await ic(repo, ['init', '--import', path]), 65, 'INVALID_INPUT');
    expect([digest(path), digest(`${path}-wal`)]).toEqual(before);
    nothingCreated();
  });
});

describe('the stall threshold is the repository’s', () => {
  const T0 = Date.parse('2030-01-01T00:00:00.000Z');
  const at = (minutes: number) => ({ IC_NOW: new Date(T0 + minutes * 60_000).toISOString() });

  it('ignores IC_STALL_AFTER in the taker’s environment; `ic config stall-after` sets it for everyone', async () => {
    expect((await coord(repo, ['claim', 'bd-1', '--owner', 'alice', '--ttl', '4h'], { env: at(0) })).exitCode).toBe(0);
    const early = await coord(repo, ['claim', 'bd-1', '--owner', 'bob', '--take'], { env: { ...at(2), IC_STALL_AFTER: '1s' } });
    expectClean(early, 1, 'CONFLICT');
    expect(early.json.error.message).toMatch(/not stalled/);
    expect((await coord(repo, ['list', '--active'], { env: at(2) })).json.locks[0].owner).toBe('alice');
    expectClean(await ic(repo, ['config', 'stall-after', '1s'], { env: at(3) }), 65, 'INVALID_INPUT'); // below the 1m floor
    const set = await ic(repo, ['config', 'stall-after', '5m'], { env: at(3) });
    expect(set.exitCode).toBe(0);
    expect(set.json).toMatchObject({ settings: [{ name: 'stall-after', value: '5m', default: false }], previous: '60m' });
    expect((await ic(repo, ['config', 'stall-after'])).json.settings[0].value).toBe('5m');
    const taken = await coord(repo, ['claim', 'bd-1', '--owner', 'bob', '--take'], { env: at(6) });
    expect(taken.exitCode, taken.stdout).toBe(0);
    expect(taken.json.taken_over_from).toBe('alice');
  });

  it('ten concurrent takers of one stalled claim: exactly one wins', async () => {
    expect((await coord(repo, ['claim', 'bd-2', '--owner', 'alice', '--ttl', '4h'], { env: at(0) })).exitCode).toBe(0);
    const takers = await Promise.all(Array.from({ length: 10 }, (_, i) => coord(repo, ['claim', 'bd-2', '--owner', `taker-${i}`, '--take'], { env: { ...at(61), IC_STALL_AFTER: '1s' } })));
    const winners = takers.filter((r) => r.exitCode === 0);
    expect(winners).toHaveLength(1);
    for (const loser of takers.filter((r) => r.exitCode !== 0)) expectClean(loser, 1, 'CONFLICT');
    const holder = (await coord(repo, ['list', '--active'], { env: at(62) })).json.locks[0];
    expect(holder.owner).toBe(winners[0]!.json.locks[0].owner);
    const events = (await coord(repo, ['events'], { env: at(62) })).json.events.filter((e: any) => e.type === 'taken_over');
    expect(events).toHaveLength(1);
  }, 60_000);
});

describe('clock poisoning', () => {
  it('refuses a write from a test clock far in the future, storing nothing', async () => {
    expect((await coord(repo, ['reserve', 'a.ts'], as('alice'))).exitCode).toBe(0);
    const before = (await coord(repo, ['events'])).json.events;
    const poisoned = await coord(repo, ['reserve', 'b.ts'], as('bob', { IC_NOW: '2200-01-01T00:00:00Z' }));
    expectClean(poisoned, 65, 'INVALID_INPUT');
    expect(poisoned.json.error.message).toMatch(/more than a day ahead/);
    expect((await coord(repo, ['events'])).json.events).toEqual(before);
    // A later write with the real clock is dated now, not 2200.
    const next = await coord(repo, ['reserve', 'c.ts'], as('carol'));
    expect(Date.parse(next.json.locks[0].created_at)).toBeLessThan(Date.now() + 60_000);
  });

  it('a database already poisoned: writes are refused, doctor finds it, `ic doctor --repair-clock` repairs it', async () => {
    expect((await coord(repo, ['reserve', 'a.ts', '--ttl', '2h'], as('alice'))).exitCode).toBe(0);
    // What the 0.2 clamp left behind after one write at 2200.
    const db = new Database(repo.db);
    const future = Date.parse('2200-01-01T00:00:00Z');
    db.prepare("INSERT INTO events (type, lock_id, scope, owner, created_at) VALUES ('heartbeat', NULL, ?, 'mallory', ?)").run(repo.dir, future);
    db.close();
    const refused = await coord(repo, ['reserve', 'b.ts'], as('bob'));
    expectClean(refused, 65, 'INVALID_INPUT');
    expect(refused.json.error.hint).toMatch(/--repair-clock/);
    const doctor = await ic(repo, ['doctor']);
    expect(doctor.exitCode).toBe(1);
    expect(doctor.json.checks.find((c: any) => c.name === 'clock')).toMatchObject({ ok: false, fix: expect.stringMatching(/ic doctor --repair-clock/) });
    const repaired = await ic(repo, ['doctor', '--repair-clock']);
    expect(repaired.exitCode, repaired.stdout).toBe(0);
    expect(repaired.json.repaired).toMatchObject({ events: 1 });
    expect((await ic(repo, ['doctor'])).json.checks.find((c: any) => c.name === 'clock')).toMatchObject({ ok: true });
    const granted = await coord(repo, ['reserve', 'b.ts'], as('bob'));
    expect(granted.exitCode).toBe(0);
    expect(Date.parse(granted.json.locks[0].created_at)).toBeLessThan(Date.now() + 60_000);
    // alice's lock kept its time.
    const alice = (await coord(repo, ['list', '--active'])).json.locks.find((l: any) => l.owner === 'alice');
    expect(Date.parse(alice.expires_at)).toBeGreaterThan(Date.now() + 3_600_000);
  });

  it('sweep never deletes a private index on the database clock’s word alone: its files must be a day old by the real time', () => {
    const dir = join(repo.dir, '.git', 'ic', 'index');
    mkdirSync(dir, { recursive: true });
    const index = join(dir, 'alice@12345678');
    writeFileSync(index, 'index');
    writeFileSync(`${index}.base`, JSON.stringify({ base: '', owner: 'alice', worktree: repo.dir }));
    const year2200 = Date.parse('2200-01-01T00:00:00Z');
    // A database dated 2200 says alice has been idle for ages: the fresh files say otherwise.
    expect(sweepIndexFiles(dir, year2200, () => Date.now(), false)).toEqual([]);
    expect(existsSync(index)).toBe(true);
    // Files a day old and an owner idle for a day by the database: both witnesses agree, it goes.
    const dayOld = new Date(Date.now() - 25 * 3_600_000);
    for (const file of [index, `${index}.base`]) utimesSync(file, dayOld, dayOld);
    expect(sweepIndexFiles(dir, Date.now(), () => Date.now() - 25 * 3_600_000, false)).toEqual([index]);
    expect(existsSync(index)).toBe(false);
  });
});
