// A database written by schema 1 (random lock ids, tokens from a counter) opened by this ic: the real bin
// migrates it to schema 2 on first use, and nothing an agent holds changes meaning.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import init from '../../schema/0001_init.sql';
import { ID_PATTERN, idForSeq } from '../../src/core/ids';
import { coord, ic, makeTempRepo, type TempRepo } from '../support/cli';

let repo: TempRepo;
beforeEach(() => (repo = makeTempRepo('ic-migrate-')));
afterEach(() => repo.cleanup());

const as = (owner: string) => ({ env: { IC_OWNER: owner } });
const HOUR = 3_600_000;

interface LegacyLock {
  id: string;
  token: number;
  owner: string;
  pattern: string;
  released?: boolean;
}

// Writes the database exactly as schema 1 left it: 0001_init.sql, version 1, the given locks with one
// `reserved` event each, and the token counter at `counter` (it ran ahead of the events, e.g. transfers
// whose events were purged).
function writeSchema1(path: string, scope: string, locks: LegacyLock[], counter: number): void {
  mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.exec(init);
  db.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT');
  db.prepare("INSERT INTO schema_migrations VALUES (1, '0001_init', ?)").run(Date.now() - HOUR);
  db.pragma('user_version = 1');
  const now = Date.now();
  const insertLock = db.prepare(
    "INSERT INTO locks (id, token, type, scope, pattern, base, owner, mode, reason, created_at, expires_at, ttl_ms, released_at, release_reason) VALUES (?, ?, 'file', ?, ?, ?, ?, 'exclusive', NULL, ?, ?, ?, ?, ?)",
  );
  const insertEvent = db.prepare('INSERT INTO events (type, lock_id, scope, owner, pattern, reason, created_at) VALUES (?, ?, ?, ?, ?, NULL, ?)');
  for (const lock of locks) {
    const base = lock.pattern.replace(/\/?\*\*$/, '');
    insertLock.run(lock.id, lock.token, scope, lock.pattern, base, lock.owner, now - 1000, now + HOUR, HOUR, lock.released ? now - 500 : null, lock.released ? 'released' : null);
    insertEvent.run('reserved', lock.id, scope, lock.owner, lock.pattern, now - 1000);
    if (lock.released) insertEvent.run('released', lock.id, scope, lock.owner, lock.pattern, now - 500);
  }
  db.prepare("UPDATE counters SET value = ? WHERE name = 'fencing_token'").run(counter);
  db.close();
}

const LEGACY: LegacyLock[] = [
  { id: 'k3j9x0ab', token: 1, owner: 'alice', pattern: 'src/**' },
  { id: 'q81mzz0c', token: 2, owner: 'bob', pattern: 'docs/a.md' },
  { id: '0b7tq2ne', token: 3, owner: 'alice', pattern: 'old.ts', released: true },
];

describe('schema 1 → 2', () => {
  it('keeps every lock with its id and token; old ids still verify and release; new tokens are above every old one', async () => {
    writeSchema1(repo.db, repo.dir, LEGACY, 7);
    const listed = await coord(repo, ['list']);
    expect(listed.exitCode).toBe(0);
    expect(listed.json.locks.map((l: any) => [l.id, l.token, l.owner, l.pattern, l.release_reason])).toEqual(
      LEGACY.map((l) => [l.id, l.token, l.owner, l.pattern, l.released ? 'released' : null]),
    );

    expect((await coord(repo, ['verify', 'k3j9x0ab', '1'])).exitCode).toBe(0);
    expect((await coord(repo, ['verify', 'k3j9x0ab', '2'])).json.why).toBe('token_mismatch');
    // The old locks still bind others: the rebuilt base index has them.
    const refused = await coord(repo, ['reserve', 'src/app.ts'], as('bob'));
    expect(refused.exitCode).toBe(1);
    expect(refused.json.error.conflicts[0].held.id).toBe('k3j9x0ab');

    const fresh = await coord(repo, ['reserve', 'lib/x.ts'], as('bob'));
    expect(fresh.exitCode).toBe(0);
    expect(fresh.json.locks[0].token).toBeGreaterThan(7); // above the schema-1 counter, not just the events
    expect(fresh.json.locks[0].id).toMatch(ID_PATTERN);

    const released = await coord(repo, ['release', 'q81mzz0c'], as('bob'));
    expect(released.json.released.map((l: any) => l.id)).toEqual(['q81mzz0c']);
    expect((await coord(repo, ['release', '0b7tq2ne'], as('alice'))).json.not_released).toEqual([{ id: '0b7tq2ne', why: 'already_released' }]);
    expect((await coord(repo, ['renew', 'k3j9x0ab', '--ttl', '2h'], as('alice'))).json.locks[0].token).toBe(1);

    const doctor = await ic(repo, ['doctor']);
    expect(doctor.json).toMatchObject({ healthy: true, integrity: 'ok', schema_version: 2 });
  });

  it('gives a new lock another id when a stored id already is the one derived for it, and finds both', async () => {
    writeSchema1(repo.db, repo.dir, [{ id: 'k3j9x0ab', token: 5, owner: 'alice', pattern: 'a.ts' }], 7);
    expect((await coord(repo, ['list'])).exitCode).toBe(0); // migrates; draws this database's id salt
    // The next token-assigning event id is max(1 event, floor 7) + 1 = 8; plant a stored id equal to the id
    // that key would derive (as a schema-1 lock with that random id would be).
    const db = new Database(repo.db);
    const salt = (db.prepare("SELECT value FROM counters WHERE name = 'id_salt'").get() as { value: number }).value;
    const clash = idForSeq(8, salt);
    db.prepare("UPDATE locks SET id = ? WHERE id = 'k3j9x0ab'").run(clash);
    db.close();

    const fresh = await coord(repo, ['reserve', 'b.ts'], as('bob'));
    expect(fresh.exitCode).toBe(0);
    expect(fresh.json.locks[0].token).toBe(8);
    expect(fresh.json.locks[0].id).not.toBe(clash);
    expect(fresh.json.locks[0].id).toMatch(ID_PATTERN);
    expect((await coord(repo, ['verify', clash, '5'])).exitCode).toBe(0);
    expect((await coord(repo, ['verify', fresh.json.locks[0].id, '8'])).exitCode).toBe(0);
    expect((await coord(repo, ['release', fresh.json.locks[0].id], as('bob'))).exitCode).toBe(0);
    expect((await coord(repo, ['release', clash], as('alice'))).exitCode).toBe(0);
  });

  it('a schema-1 lock transfers, expires and binds through the lock-delay like any other', async () => {
    writeSchema1(repo.db, repo.dir, LEGACY, 7);
    const moved = await coord(repo, ['transfer', '--from', 'alice', '--to', 'carol'], as('alice'));
    expect(moved.json.locks.map((l: any) => [l.id, l.owner])).toEqual([['k3j9x0ab', 'carol']]);
    expect(moved.json.locks[0].token).toBeGreaterThan(7);
    expect((await coord(repo, ['verify', 'k3j9x0ab', '1'])).json.why).toBe('token_mismatch');
    expect((await coord(repo, ['verify', 'k3j9x0ab', String(moved.json.locks[0].token)])).exitCode).toBe(0);

    const afterExpiry = new Date(Date.now() + HOUR + 10_000).toISOString();
    const swept = await coord(repo, ['sweep'], { env: { IC_NOW: afterExpiry } });
    expect(swept.json.expired).toBe(2); // carol's src/** and bob's docs/a.md
    const blocked = await coord(repo, ['reserve', 'src/x.ts'], { env: { IC_OWNER: 'dave', IC_NOW: afterExpiry } });
    expect(blocked.exitCode).toBe(1);
    expect(blocked.json.error.conflicts[0]).toMatchObject({ state: 'lock_delay', held: { id: 'k3j9x0ab' } });
    expect((await coord(repo, ['reserve', 'src/**'], { env: { IC_OWNER: 'carol', IC_NOW: afterExpiry } })).exitCode).toBe(0);
  });

  it('an older ic still holding the database open can no longer take a token once it is migrated', async () => {
    writeSchema1(repo.db, repo.dir, LEGACY, 7);
    const old = new Database(repo.db);
    const oldNextToken = "UPDATE counters SET value = value + 1 WHERE name = 'fencing_token' RETURNING value"; // schema 1's grant
    expect(old.prepare(oldNextToken).get()).toEqual({ value: 8 });
    expect((await coord(repo, ['reserve', 'new.ts'], as('bob'))).exitCode).toBe(0); // migrates under it
    // The old grant fails at its first step and rolls back, instead of inserting a row no id finds.
    expect(old.prepare(oldNextToken).get()).toBeUndefined();
    old.close();
  });

  it('is applied once when many processes open the old database at the same moment', async () => {
    writeSchema1(repo.db, repo.dir, LEGACY, 20);
    const runs = await Promise.all(Array.from({ length: 8 }, (_, i) => coord(repo, ['reserve', `f${i}.ts`], as(`agent-${i}`))));
    expect(runs.map((r) => r.exitCode)).toEqual(Array(8).fill(0));
    const tokens = runs.map((r) => r.json.locks[0].token);
    expect(new Set(tokens).size).toBe(8);
    expect(Math.min(...tokens)).toBeGreaterThan(20); // above the schema-1 counter, which ran ahead of the events
    const db = new Database(repo.db, { readonly: true });
    try {
      expect(db.prepare('SELECT version FROM schema_migrations ORDER BY version').all()).toEqual([{ version: 1 }, { version: 2 }]);
      expect(db.prepare('SELECT COUNT(*) AS n FROM locks').get()).toEqual({ n: LEGACY.length + 8 });
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      db.close();
    }
  });

  it('leaves the page size of an old database alone; a new one gets 1 KiB pages (cheaper WAL frames)', async () => {
    writeSchema1(repo.db, repo.dir, LEGACY, 3);
    await coord(repo, ['reserve', 'x.ts'], as('alice'));
    const other = makeTempRepo('ic-migrate-');
    try {
      await coord(other, ['reserve', 'x.ts'], as('alice'));
      const pageSize = (path: string) => {
        const db = new Database(path, { readonly: true });
        try {
          return db.pragma('page_size', { simple: true });
        } finally {
          db.close();
        }
      };
      expect(pageSize(repo.db)).toBe(4096);
      expect(pageSize(other.db)).toBe(1024);
    } finally {
      other.cleanup();
    }
  });
});
