// Single writer per scope on PostgreSQL, with real processes: 16 clients taking and giving back overlapping
// patterns of one scope never hold one pattern twice; the same clients without the scope lock do (so the
// check can fail); a client killed with SIGKILL in the middle of a transaction leaves nothing of it; and one
// stopped with SIGSTOP holds its scope only until the server ends its idle transaction.
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { migratePostgres } from '../../src/store/postgres/migrate';
import { IcError } from '../../src/core/errors';
import type { PostgresConnection } from '../../src/store/postgres/connection';
import { connect, freshSchemaUrl, serverUrl, withConnection } from './support';
import { scopeTransaction } from './scope-transaction';
import { parameterOf, withParameter } from '../../src/store/postgres/url';
import { worker } from './process';
import { PgConnection } from '../../src/store/postgres/pg-connection';
import { newestEventTime } from '../../src/store/clock';
import { doubleGrants } from './grants';

const WRITERS = 16;
const PATTERNS = ['src/a.ts', 'src/b.ts', 'src/c.ts', 'src/d.ts'];
const SEED = Number(process.env.STRESS_SEED ?? 211804388);

const created: string[] = [];
afterEach(async () => {
  await withConnection(serverUrl(), async (db) => {
    for (const schema of created.splice(0)) await db.exec(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  });
});

async function freshDatabase(): Promise<string> {
  const { url, schema } = freshSchemaUrl();
  created.push(schema);
  await withConnection(url, (db) => migratePostgres(db, 0));
  return url;
}

async function runWriters(url: string, scope: string, lock: boolean, iterations: number): Promise<{ granted: number; released: number; refused: number; busy: number }[]> {
  // All writers start together once connected: on a loaded machine, staggered process starts could otherwise
  // run them one after another, and the control run (no scope lock) would then find nothing to catch.
  const barrier = randomBytes(4).readInt32BE();
  const gate = connect(url);
  let results;
  try {
    await gate.get('SELECT pg_advisory_lock(?::bigint)', [barrier]);
    const runs = Array.from({ length: WRITERS }, (_, i) => worker('grant', { url, scope, owner: `agent-${i}`, patterns: PATTERNS, iterations, seed: SEED + i, lock, barrier }));
    await waitersAt(gate, barrier, WRITERS);
    await gate.get('SELECT pg_advisory_unlock(?::bigint)', [barrier]);
    results = await Promise.all(runs);
  } finally {
    gate.close();
  }
  for (const result of results) expect(result.exitCode, result.stderr).toBe(0);
  return results.map((result) => JSON.parse(result.stdout));
}

// Polls until `count` sessions wait for the advisory lock `key` (pg_locks splits a bigint key into objid and classid).
async function waitersAt(db: PostgresConnection, key: number, count: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  const sql = "SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND objid::text::bigint = (?::bigint & 4294967295) AND objsubid = 1";
  for (;;) {
    const waiting = (await db.get<{ n: number }>(sql, [key]))!.n;
    if (waiting >= count) return;
    if (Date.now() > deadline) throw new Error(`only ${waiting} of ${count} writers reached the start barrier in 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('the scope lock, with 16 writer processes', () => {
  it('never grants one pattern to two owners at once', async () => {
    const url = await freshDatabase();
    const counts = await runWriters(url, '/repo', true, 20);
    const total = counts.reduce((sum, c) => ({ granted: sum.granted + c.granted, released: sum.released + c.released, refused: sum.refused + c.refused, busy: sum.busy + c.busy }));
    expect(total.busy).toBe(0);
    expect(total.granted + total.released + total.refused).toBe(WRITERS * 20);
    expect(total.granted).toBeGreaterThan(PATTERNS.length); // patterns changed hands, not just the first grants
    expect(total.refused).toBeGreaterThan(0); // writers did meet each other's locks
    await withConnection(url, async (db) => {
      const found = await doubleGrants(db, '/repo');
      expect(found.grants).toBe(total.granted);
      expect(found).toMatchObject({ replayed: 0, live: 0 });
    });
  });

  it('the same writers without the scope lock do grant twice: the check above can fail', async () => {
    const url = await freshDatabase();
    await runWriters(url, '/repo', false, 20);
    await withConnection(url, async (db) => {
      const found = await doubleGrants(db, '/repo');
      expect(found.replayed + found.live).toBeGreaterThan(0);
    });
  });
});

describe('a write’s clock check, read in the same exchange as its scope lock', () => {
  it('sees the event of the writer it waited for: the server runs it once the lock is held', async () => {
    const url = await freshDatabase();
    const scope = `/repo-${randomBytes(3).toString('hex')}`;
    await withConnection(url, (db) => scopeTransaction(db, scope, () => undefined)); // the scope's row exists: the one-exchange path
    const holder = worker('hold', { url, scope, owner: 'holder', during: 'idle', holdMs: 700 });
    await new Promise<void>((resolve, reject) => {
      holder.stdout!.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('inserted')) resolve();
      });
      holder.on('exit', () => reject(new Error('the holder exited before inserting')));
    });
    const db = PgConnection.open(url, { lockTimeoutMs: 10_000 });
    let newest: number | null;
    try {
      newest = await db.write({ scopes: [scope] }, async () => newestEventTime(db)); // waits for the holder's commit
    } finally {
      db.close();
    }
    expect((await holder).exitCode).toBe(0);
    const committed = await withConnection(url, (check) => check.get<{ created_at: number }>("SELECT created_at FROM events WHERE owner = 'holder'"));
    expect(committed).toBeDefined();
    expect(newest).toBe(committed!.created_at); // read after the wait, not before it (that read would be null)
  });
});

describe('a client killed with SIGKILL mid-transaction', () => {
  for (const during of ['idle', 'statement'] as const) {
    it(`leaves no half-written row and frees the scope (killed while ${during === 'idle' ? 'idle in the transaction' : 'a statement runs'})`, async () => {
      const url = await freshDatabase();
      const scope = `/repo-${randomBytes(3).toString('hex')}`;
      const victim = worker('hold', { url, scope, owner: 'victim', during });
      await new Promise<void>((resolve, reject) => {
        victim.stdout!.on('data', (chunk: Buffer) => {
          if (chunk.toString().includes('inserted')) resolve();
        });
        victim.on('exit', () => reject(new Error('the victim exited before inserting')));
      });
      // Before the kill, the rows exist (in its open transaction) and the scope is held.
      await withConnection(url, async (db) => {
        expect(
          (await db.get<{ n: number }>("SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = 'ic' AND pid <> pg_backend_pid() AND state = ?", [
            during === 'idle' ? 'idle in transaction' : 'active',
          ]))!.n,
        ).toBeGreaterThan(0);
        let busy: unknown;
        try {
          await scopeTransaction(db, scope, () => undefined, { lockTimeoutMs: 100 });
        } catch (error) {
          busy = error;
        }
        expect((busy as IcError).code).toBe('BUSY');
      });
      victim.kill('SIGKILL');
      const result = await victim;
      expect(result.signal).toBe('SIGKILL');
      // The server rolls the transaction back when it sees the client gone: at once when idle, within
      // client_connection_check_interval (1 s) during a statement. The next writer gets the scope.
      await withConnection(url, async (db) => {
        const started = Date.now();
        expect(await scopeTransaction(db, scope, () => 'mine', { lockTimeoutMs: 10_000 })).toBe('mine');
        expect(Date.now() - started).toBeLessThan(10_000);
        expect(await db.all("SELECT seq FROM locks WHERE owner = 'victim'")).toEqual([]);
        expect(await db.all("SELECT id FROM events WHERE owner = 'victim'")).toEqual([]);
      });
    });
  }
});

describe('a client stopped with SIGSTOP mid-transaction', () => {
  it('holds its scope only until the server ends its idle transaction; resumed, it commits nothing', async () => {
    // The session setting ic connects with is 60 s (src/store/postgres/connection.ts); a person's `options` in the
    // URL come after ic's and win, which lets this test use 1 s.
    const base = await freshDatabase();
    const url = withParameter(base, 'options', `${parameterOf(base, 'options') ?? ''} -c idle_in_transaction_session_timeout=1000`.trim());
    const scope = `/repo-${randomBytes(3).toString('hex')}`;
    const victim = worker('hold', { url, scope, owner: 'victim', during: 'idle', holdMs: 1_500 });
    await new Promise<void>((resolve, reject) => {
      victim.stdout!.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('inserted')) resolve();
      });
      victim.on('exit', () => reject(new Error('the victim exited before inserting')));
    });
    victim.kill('SIGSTOP'); // a frozen VM, a suspended laptop: the socket stays open, nothing answers
    try {
      await withConnection(base, async (db) => {
        const started = Date.now();
        expect(await scopeTransaction(db, scope, () => 'mine', { lockTimeoutMs: 10_000 })).toBe('mine');
        expect(Date.now() - started).toBeLessThan(5_000); // the server ended the stopped client's transaction
        expect(await db.all("SELECT seq FROM locks WHERE owner = 'victim'")).toEqual([]);
      });
    } finally {
      victim.kill('SIGCONT');
    }
    const result = await victim;
    expect(result.exitCode).not.toBe(0); // its COMMIT met a closed session
    await withConnection(base, async (db) => {
      expect(await db.all("SELECT seq FROM locks WHERE owner = 'victim'")).toEqual([]);
      expect(await db.all("SELECT id FROM events WHERE owner = 'victim'")).toEqual([]);
    });
  });
});
