// The store's engine boundary (src/store/connection.ts) on a real SQLite file: statement caching, the
// transaction semantics every engine must give, the dialect statements, and the write scope each use case names.
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDb } from '../../src/store/open';
import { dialectStatements, EVERYTHING, type Connection, type WriteScope } from '../../src/store/connection';
import { sqliteHandle } from '../../src/store/sqlite-connection';
import { heartbeat } from '../../src/coord/heartbeat';
import { release } from '../../src/coord/release';
import { renew } from '../../src/coord/renew';
import { sweep } from '../../src/coord/sweep';
import { grant, useTestStore } from '../support/store';
import { execa } from 'execa';

// Holds the database's write lock 15 ms at a time with 2 ms free between, for up to 20 s; says "on" once.
const HOLDER = `
const db = require('better-sqlite3')(process.argv[1]);
const sleeper = new Int32Array(new SharedArrayBuffer(4));
const end = Date.now() + 20000;
let told = false;
while (Date.now() < end) {
  db.exec('BEGIN IMMEDIATE');
  if (!told) { process.stdout.write('on'); told = true; }
  const until = performance.now() + 15;
  while (performance.now() < until);
  db.exec('COMMIT');
  Atomics.wait(sleeper, 0, 0, 2);
}`;

describe('SqliteConnection', () => {
  let dir: string;
  let db: Connection;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ic-connection-'));
    db = openDb({ path: join(dir, 'ic.db'), source: 'git' }, { write: true, busyTimeoutMs: 1_000, now: Date.now(), env: {} }).db;
  });
  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const owners = async () => ((await db.prepare('SELECT owner FROM owners ORDER BY owner').all()) as { owner: string }[]).map((row) => row.owner);
  const insert = (owner: string) => db.prepare('INSERT INTO owners (owner, last_seen) VALUES (?, 0)').run(owner);

  it('prepares each text once per connection, and runs the SQLite text of a dialect statement', async () => {
    expect(db.engine).toBe('sqlite');
    expect(db.prepare('SELECT 1 AS one')).toBe(db.prepare('SELECT 1 AS one'));
    const both = { sqlite: 'SELECT 2 AS two', postgres: 'SELECT not valid sqlite' };
    expect(await db.prepare(both).get()).toEqual({ two: 2 });
    expect(sqliteHandle(db)).toBeDefined();
  });

  it('commits a write when its work returns, rolls it back when the work throws, and nests as a savepoint', async () => {
    await db.write(EVERYTHING, async () => insert('kept'));
    await expect(
      db.write({ scopes: ['/s'] }, async () => {
        await insert('undone');
        throw new Error('no');
      }),
    ).rejects.toThrow('no');
    await db.write(EVERYTHING, async () => {
      await insert('outer');
      await expect(
        db.write({ scopes: ['/s'] }, async () => {
          await insert('inner');
          throw new Error('inner');
        }),
      ).rejects.toThrow('inner');
    });
    expect(await owners()).toEqual(['kept', 'outer']);
  });

  it('a writer waiting for the lock gets it in the short gaps another process leaves between its transactions', async () => {
    // A bulk operation's pattern (coord/chunks.ts): the lock held 15 ms, then free for a moment, again and
    // again. SQLite's own busy handler, whose sleeps grow to 100 ms, missed the gap in a quarter of these.
    const holder = execa(process.execPath, ['-e', HOLDER, join(dir, 'ic.db')], { cwd: process.cwd() });
    try {
      await new Promise((resolve) => holder.stdout!.once('data', resolve));
      // A wait of a second: some 60 gaps to find, so a loaded machine that schedules the waiter late for a few of
      // them still finds one; SQLite's handler wakes about 18 times in it and misses on most writes' worth.
      db.setLockWait(1_000);
      let busy = 0;
      for (let i = 0; i < 20; i++) {
        try {
          await db.write(EVERYTHING, async () => insert(`w${i}`));
        } catch (error) {
          if ((error as { code?: string }).code?.startsWith('SQLITE_BUSY')) busy++;
          else throw error;
        }
        await new Promise((resolve) => setTimeout(resolve, 40)); // like hooks one after another: the holder goes on
      }
      expect(busy).toBe(0);
      expect(await owners()).toHaveLength(20);
    } finally {
      holder.kill('SIGKILL');
      await holder.catch(() => undefined);
    }
  }, 30_000);

  it('reads in one transaction and leaves none open, even when the work throws', async () => {
    await insert('a');
    expect(await db.read(async () => owners())).toEqual(['a']);
    await expect(
      db.read(async () => {
        throw new Error('no');
      }),
    ).rejects.toThrow('no');
    expect(sqliteHandle(db)!.inTransaction).toBe(false);
  });
});

describe('dialect statements', () => {
  beforeAll(async () => {
    // Every store module, so that each declares its dialect statements.
    for (const file of readdirSync(join(__dirname, '../../src/store')).filter((name) => name.endsWith('.ts'))) await import(`../../src/store/${file}`);
  });
  const store = useTestStore();
  const marks = (sql: string) => sql.split('?').length - 1;

  it('bind the same parameters in both dialects, and the SQLite text is valid against the schema', () => {
    const list = dialectStatements;
    expect(list.length).toBeGreaterThanOrEqual(10);
    for (const sql of list) {
      expect(marks(sql.postgres), sql.postgres).toBe(marks(sql.sqlite));
      expect(sql.postgres).not.toBe(sql.sqlite);
      expect(() => sqliteHandle(store.ctx.db)!.prepare(sql.sqlite)).not.toThrow();
    }
  });
});

describe('write scopes', () => {
  const store = useTestStore();
  let scopes: WriteScope[];
  // A recording connection around the real one: what each use case asks the engine to lock.
  beforeEach(() => {
    scopes = [];
    const real = store.ctx.db;
    store.ctx.db = {
      engine: real.engine,
      location: real.location,
      prepare: (sql) => real.prepare(sql),
      write: async (scope, work) => (scopes.push(scope), await real.write(scope, work)),
      read: (work) => real.read(work),
      setLockWait: (ms) => real.setLockWait(ms),
      now: (clock) => real.now(clock),
      close: () => real.close(),
    };
  });
  const own = () => ({ scopes: [store.ctx.scope] });

  it('a reserve locks its own scope; a heartbeat and a sweep lock everything', async () => {
    await grant(store.ctx, 'alice', ['src/a.ts']);
    expect(scopes).toEqual([own()]);
    scopes.length = 0;
    await heartbeat(store.ctx, 'alice', 0);
    expect(scopes).toEqual([EVERYTHING]);
    scopes.length = 0;
    store.now += 3_600_000;
    await sweep(store.ctx, { dryRun: false });
    expect(scopes.length).toBeGreaterThan(0);
    expect(scopes.every((scope) => 'everything' in scope)).toBe(true);
  });

  it('release --all and renew of all locks lock the scopes list shows; by id, a lock of any scope, so everything', async () => {
    // Bulk writes go in chunks of a few milliseconds each (coord/chunks.ts): a loaded machine splits even two
    // locks into two transactions, so what counts is the scope each one locks, not how many there are.
    const locked = () => [...new Set(scopes.map((scope) => JSON.stringify(scope)))].map((scope) => JSON.parse(scope));
    const [lock] = await grant(store.ctx, 'alice', ['src/a.ts', 'src/b.ts']);
    scopes.length = 0;
    await renew(store.ctx, { ids: [], owner: 'alice' });
    expect(locked()).toEqual([own()]);
    scopes.length = 0;
    await renew(store.ctx, { ids: [lock!.id], owner: 'alice' });
    expect(locked()).toEqual([EVERYTHING]);
    scopes.length = 0;
    await release(store.ctx, { ids: [], owner: 'alice', all: true, force: false, reason: null });
    expect(locked()).toEqual([own()]);
  });
});
