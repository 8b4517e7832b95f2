// Event ids from a sequence commit out of order across scopes; a follower bounded by finished transactions
// (queryEvents and eventsAfterCursor in src/store/events.ts) still sees every event, where one that only
// compares ids misses one.
import { afterEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createContext, type CoordContext } from '../../src/coord/context';
import { readEvents } from '../../src/coord/events';
import { consumerPosition, cursorAfter, eventsAfterCursor, lockConsumer, LOG_START, queryEvents } from '../../src/store/events';
import { EVERYTHING_LOCK_KEY, PgConnection } from '../../src/store/postgres/pg-connection';
import { grant, T0 } from '../support/store';
import { POSTGRES_CLIENT_CLOCK } from '../support/engine';
import { migratePostgres } from '../../src/store/postgres/migrate';
import { POSTGRES_MIGRATIONS } from '../../src/store/postgres/migrations';
import type { PostgresConnection } from '../../src/store/postgres/connection';
import { freshSchemaUrl, serverUrl, withConnection } from './support';
import { scopeTransaction } from './scope-transaction';

const created: string[] = [];
const cleanups: (() => void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) cleanup();
  await withConnection(serverUrl(), async (db) => {
    for (const schema of created.splice(0)) await db.exec(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  });
});

// The listing's read: events after `afterId` that no later commit can precede, in id order.
function finishedEventsAfter(db: PostgresConnection, afterId: number): Promise<{ id: number }[]> {
  const store = new PgConnection(db, { lockWaitMs: 1_000, clientClock: false });
  return store.read(() => queryEvents(store, { afterId, limit: 100 }));
}

async function insertEvent(db: PostgresConnection, scope: string): Promise<number> {
  return (await db.get<{ id: number }>("INSERT INTO events (type, scope, owner, created_at) VALUES ('heartbeat', ?, 'o', 0) RETURNING id", [scope]))!.id;
}

describe('following events written by two scopes at once', () => {
  it('a smaller id committed later is missed by an id cursor and seen by the finished-transactions bound', async () => {
    const { url, schema } = freshSchemaUrl();
    created.push(schema);
    await withConnection(url, (slow) =>
      withConnection(url, (fast) =>
        withConnection(url, async (follower) => {
          await migratePostgres(follower, 0);
          let earlier = 0;
          let later = 0;
          await scopeTransaction(slow, '/repo-a', async () => {
            earlier = await insertEvent(slow, '/repo-a'); // taken first, committed last
            later = await scopeTransaction(fast, '/repo-b', () => insertEvent(fast, '/repo-b'));
            expect(later).toBeGreaterThan(earlier);
            // While the slow transaction runs: the plain read already shows the later id …
            expect((await follower.all<{ id: number }>('SELECT id FROM events WHERE id > ? ORDER BY id', [0])).map((row) => row.id)).toEqual([later]);
            // … and the bounded read shows nothing yet: a smaller id may still commit.
            expect(await finishedEventsAfter(follower, 0)).toEqual([]);
          });
          // The plain follower moved its cursor to `later` and never sees `earlier`.
          expect(await follower.all('SELECT id FROM events WHERE id > ?', [later])).toEqual([]);
          // The bounded follower, whose cursor never passed an unfinished id, sees both, in order.
          expect((await finishedEventsAfter(follower, 0)).map((event) => event.id)).toEqual([earlier, later]);
        }),
      ),
    );
  });

  it('a transaction that started first but takes its id last: the bound alone hands out the larger id first, a (transaction, id) cursor still gets the smaller one', async () => {
    const { url, schema } = freshSchemaUrl();
    created.push(schema);
    await withConnection(url, async (older) =>
      withConnection(url, async (younger) =>
        withConnection(url, async (follower) => {
          await migratePostgres(follower, 0);
          const store = new PgConnection(follower, { lockWaitMs: 1_000, clientClock: false });
          await older.exec('BEGIN');
          await older.get('SELECT pg_current_xact_id() AS x'); // the older transaction id
          await younger.exec('BEGIN');
          await younger.get('SELECT pg_current_xact_id() AS x');
          const smaller = await insertEvent(younger, '/repo-b'); // the younger transaction takes its id first …
          const larger = await insertEvent(older, '/repo-a'); // … the older one after it, and commits first
          await older.exec('COMMIT');
          expect(larger).toBeGreaterThan(smaller);
          // The older transaction is finished and below the bound: both readers hand out `larger` now.
          expect((await finishedEventsAfter(follower, 0)).map((event) => event.id)).toEqual([larger]);
          const first = await store.read(async () => eventsAfterCursor(store, LOG_START, { floorId: 0, limit: 100 }));
          expect(first.map((event) => event.id)).toEqual([larger]);
          await younger.exec('COMMIT');
          // An id cursor now stands at `larger` and never sees `smaller`; the (transaction, id) cursor does.
          expect(await finishedEventsAfter(follower, larger)).toEqual([]);
          const next = await store.read(async () => eventsAfterCursor(store, cursorAfter(first[0]!), { floorId: 0, limit: 100 }));
          expect(next.map((event) => event.id)).toEqual([smaller]);
          expect(await store.read(async () => eventsAfterCursor(store, cursorAfter(next[0]!), { floorId: 0, limit: 100 }))).toEqual([]);
        }),
      ),
    );
  });
});

describe('reading order across transaction ids of different lengths', () => {
  it('is the transactions’ order, not their text’s: a cursor never passes an event it did not hand out', async () => {
    const { url, schema } = freshSchemaUrl();
    created.push(schema);
    await withConnection(url, async (db) => {
      await migratePostgres(db, 0);
      // Transactions 8, 9 and 10 (all finished, below any bound): as text, '10' sorts before '8' and '9'. The
      // suite's server crossed 99,999 to 100,000 between two reserves, and a consumer skipped the first event.
      const ids: number[] = [];
      for (const xact of ['8', '9', '10'])
        ids.push((await db.get<{ id: number }>("INSERT INTO events (type, scope, owner, created_at, xact) VALUES ('heartbeat', '/repo', 'o', 0, ?::xid8) RETURNING id", [xact]))!.id);
      const store = new PgConnection(db, { lockWaitMs: 1_000, clientClock: false });
      const first = await store.read(async () => eventsAfterCursor(store, LOG_START, { floorId: 0, limit: 2 }));
      expect(first.map((event) => event.id)).toEqual(ids.slice(0, 2));
      const rest = await store.read(async () => eventsAfterCursor(store, cursorAfter(first[1]!), { floorId: 0, limit: 2 }));
      expect(rest.map((event) => event.id)).toEqual(ids.slice(2));
    });
  });
});

// A use-case context on a fresh schema, in a git repository naming its project; lock waits of `busyTimeout`.
async function projectContext(url: string, project: string, busyTimeout: string): Promise<CoordContext> {
  const dir = mkdtempSync(join(tmpdir(), 'ic-pg-events-'));
  execFileSync('git', ['init', '-q', dir], { stdio: 'ignore' });
  execFileSync('git', ['-C', dir, 'config', 'ic.project', project], { stdio: 'ignore' });
  const ctx = await createContext({ cwd: dir, env: { IC_DB: url, IC_BUSY_TIMEOUT: busyTimeout, ...POSTGRES_CLIENT_CLOCK }, write: true, clock: () => T0 });
  cleanups.push(() => {
    ctx.db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return ctx;
}

describe('a consumer on a team server', () => {
  it("reads while another project's write is open, and readers of one consumer take turns", async () => {
    const { url, schema } = freshSchemaUrl();
    created.push(schema);
    const ctx = await projectContext(url, 'events-reader', '1s');
    await grant(ctx, 'alice', ['a', 'b']);
    await withConnection(serverUrl(), async (writer) => {
      // Another project's hook, inside its write transaction (every write holds the shared side of this lock).
      await writer.exec(`BEGIN; SELECT pg_advisory_xact_lock_shared(${EVERYTHING_LOCK_KEY})`);
      try {
        // A lock on everything waited for that writer and answered BUSY after the lock wait; the consumer's own lock does not.
        expect((await readEvents(ctx, { limit: 10, consumer: 'bot' })).map((event) => event.pattern)).toEqual(['a', 'b']);
      } finally {
        await writer.exec('ROLLBACK');
      }
    });
    await grant(ctx, 'alice', ['c']);
    // A second reader of the same consumer, inside its read-and-advance: this one waits for it (BUSY past the
    // lock wait), and gets nothing twice; another consumer does not wait.
    const other = await projectContext(url, 'events-reader', '1s');
    await other.db.write({ scopes: [] }, async () => {
      await lockConsumer(other.db, { project: 'events-reader', name: 'bot' });
      expect((await consumerPosition(other.db, { project: 'events-reader', name: 'bot' })).cursor.id).toBeGreaterThan(0); // the lock goes out with the cursor's read
      await expect(readEvents(ctx, { limit: 10, consumer: 'bot' })).rejects.toThrow(expect.objectContaining({ code: 'BUSY' }));
      expect((await readEvents(ctx, { limit: 10, consumer: 'audit' })).map((event) => event.pattern)).toEqual(['a', 'b', 'c']);
    });
    expect((await readEvents(ctx, { limit: 10, consumer: 'bot' })).map((event) => event.pattern)).toEqual(['c']);
  });
});

describe('consumers of two projects on one server', () => {
  const patterns = (events: { pattern: string | null }[]) => events.map((event) => event.pattern);

  it('two projects reading one consumer name each keep their own cursor', async () => {
    const { url, schema } = freshSchemaUrl();
    created.push(schema);
    const x = await projectContext(url, 'project-x', '5s');
    const y = await projectContext(url, 'project-y', '5s');
    await grant(x, 'alice', ['x1', 'x2']);
    await grant(y, 'bob', ['y1']);
    // One shared cursor: x's first read took x1, y's then took x2 and y1, and x never got x2. Each reads its
    // own project's events, at its own pace.
    expect(patterns(await readEvents(x, { limit: 1, consumer: 'ci' }))).toEqual(['x1']);
    expect(patterns(await readEvents(y, { limit: 10, consumer: 'ci' }))).toEqual(['y1']);
    expect(patterns(await readEvents(x, { limit: 10, consumer: 'ci' }))).toEqual(['x2']);
    await grant(x, 'alice', ['x3']);
    expect(await readEvents(y, { limit: 10, consumer: 'ci' })).toEqual([]);
    expect(patterns(await readEvents(x, { limit: 10, consumer: 'ci' }))).toEqual(['x3']);
    expect(await readEvents(x, { limit: 10, consumer: 'ci' })).toEqual([]);
  });

  it("a cursor saved before schema 5 is where every project's reader of that name starts (each reading its own events)", async () => {
    const { url, schema } = freshSchemaUrl();
    created.push(schema);
    await withConnection(url, async (db) => {
      // Schema 4, as an ic before cursors had projects left it, with events and a cursor after the first one.
      await db.exec(`CREATE SCHEMA "${schema}"; CREATE TABLE schema_migrations (version BIGINT PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`);
      for (const migration of POSTGRES_MIGRATIONS.filter((m) => m.version <= 4)) {
        await db.exec(migration.sql);
        await db.run('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)', [migration.version, migration.name, 0]);
      }
      const ids: number[] = [];
      for (const [scope, pattern] of [
        ['project-x', 'old1'],
        ['project-x', 'old2'],
        ['project-y', 'old3'],
      ])
        ids.push((await db.get<{ id: number }>("INSERT INTO events (type, scope, owner, pattern, created_at) VALUES ('heartbeat', ?, 'o', ?, 0) RETURNING id", [scope, pattern]))!.id);
      await db.run('INSERT INTO consumers (name, last_event, updated_at, last_xact) SELECT ?, id, 0, xact FROM events WHERE id = ?', ['ci', ids[0]!]);
      expect(await migratePostgres(db, 0)).toEqual([5]);
      expect(await db.all('SELECT project, name FROM consumers')).toEqual([{ project: '', name: 'ci' }]);
    });
    const x = await projectContext(url, 'project-x', '5s');
    const y = await projectContext(url, 'project-y', '5s');
    expect(patterns(await readEvents(x, { limit: 10, consumer: 'ci' }))).toEqual(['old2']);
    expect(patterns(await readEvents(y, { limit: 10, consumer: 'ci' }))).toEqual(['old3']);
    expect(await readEvents(x, { limit: 10, consumer: 'ci' })).toEqual([]);
  });
});
