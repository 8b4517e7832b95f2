// The synchronous PostgreSQL connection (src/store/postgres/connection.ts) against the suite's real server:
// placeholders, numbers, the scope transaction, the server's clock, and every error as ic's codes with no
// password in any text.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { EXIT_CODES } from '../../src/cli/exit-codes';
import { IcError } from '../../src/core/errors';
import { migratePostgres } from '../../src/store/postgres/migrate';
import { PostgresConnection } from '../../src/store/postgres/connection';
import { PgConnection } from '../../src/store/postgres/pg-connection';
import { newestEventTime } from '../../src/store/clock';
import { connect, freshSchemaUrl, serverTcpUrl, serverUrl, withConnection } from './support';
import { scopeTransaction } from './scope-transaction';

async function caught(body: () => unknown): Promise<IcError> {
  try {
    await body();
  } catch (error) {
    if (error instanceof IcError) return error;
    throw error;
  }
  throw new Error('expected an IcError, nothing was thrown');
}

// Everything a person or a log could see of an error: its text, its JSON fields, its stack, its cause chain.
function everythingShown(error: IcError): string {
  const parts = [error.message, JSON.stringify(error.details), String(error.stack)];
  let cause: unknown = error.cause;
  while (cause) {
    parts.push(cause instanceof Error ? `${cause.message} ${cause.stack}` : String(cause));
    cause = cause instanceof Error ? cause.cause : undefined;
  }
  return parts.join('\n');
}

function tcpPort(): number {
  return Number(new URL(serverTcpUrl().replace(/^postgresql:/, 'http:')).port);
}

describe('queries', () => {
  it('rewrites ? to $n outside literals, identifiers and comments', async () => {
    await withConnection(serverUrl(), async (db) => {
      const row = await db.get(`SELECT ?::text AS a, '?' AS "b?", ?::text /* ? */ AS c, E'\\'?' AS d -- ?\n, $$?$$ AS e`, ['one', 'two']);
      expect(row).toEqual({ a: 'one', 'b?': '?', c: 'two', d: "'?", e: '?' });
    });
  });

  it('refuses a statement whose placeholders and parameters do not match, before sending it', async () => {
    await withConnection(serverUrl(), async (db) => {
      const error = await caught(async () => db.get('SELECT ?::int AS a, ?::int AS b', [1]));
      expect(error.code).toBe('INTERNAL');
      expect(error.message).toContain('2 placeholders but 1 parameters');
    });
  });

  it('returns BIGINT, INTEGER, numeric sums and counts as JavaScript numbers, booleans as booleans, NULL as null', async () => {
    await withConnection(serverUrl(), async (db) => {
      const row = await db.get(
        'SELECT 9007199254740991::bigint AS big, 42::int AS int, (SELECT sum(x) FROM (VALUES (1::bigint), (2::bigint)) AS v(x)) AS sum, (SELECT count(*) FROM pg_class WHERE false) AS none, 1.5::numeric AS half, true AS yes, NULL::bigint AS nothing, 7::text AS text',
      );
      expect(row).toEqual({ big: 9007199254740991, int: 42, sum: 3, none: 0, half: 1.5, yes: true, nothing: null, text: '7' });
    });
  });

  it('refuses to round an integer beyond 2^53 rather than return a wrong number', async () => {
    await withConnection(serverUrl(), async (db) => {
      expect((await caught(async () => db.get('SELECT 9007199254740993::bigint AS n'))).code).toBe('INTERNAL');
    });
  });

  it('binds numbers, booleans, big integers and null; reports changed rows', async () => {
    const { url } = freshSchemaUrl();
    await withConnection(url, async (db) => {
      await migratePostgres(db, 0);
      expect((await db.run('INSERT INTO owners (owner, last_seen) VALUES (?, ?), (?, ?)', ['a', 1_700_000_000_123, 'b', 10n])).changes).toBe(2);
      expect((await db.run('UPDATE owners SET last_seen = ? WHERE owner = ? AND ? ', [5, 'a', true])).changes).toBe(1);
      expect(await db.all('SELECT owner, last_seen FROM owners ORDER BY owner')).toEqual([
        { owner: 'a', last_seen: 5 },
        { owner: 'b', last_seen: 10 },
      ]);
      expect(await db.get('SELECT ?::text IS NULL AS missing', [null])).toEqual({ missing: true });
    });
  });
});

describe('the scope transaction', () => {
  it('creates the scope row, commits the body, and rolls everything back when the body throws', async () => {
    const { url } = freshSchemaUrl();
    await withConnection(url, async (db) => {
      await migratePostgres(db, 0);
      await scopeTransaction(db, '/repo', () => db.run('INSERT INTO owners (owner, last_seen) VALUES (?, ?)', ['kept', 1]));
      await expect(
        scopeTransaction(db, '/repo', async () => {
          await db.run('INSERT INTO owners (owner, last_seen) VALUES (?, ?)', ['lost', 1]);
          throw new Error('the body fails');
        }),
      ).rejects.toThrow('the body fails');
      expect(await db.all('SELECT owner FROM owners')).toEqual([{ owner: 'kept' }]);
      expect(await db.all('SELECT scope FROM scopes')).toEqual([{ scope: '/repo' }]);
    });
  });

  it('runs at READ COMMITTED even when the server defaults to another level', async () => {
    const { url } = freshSchemaUrl();
    const strict = `${url}%20-c%20default_transaction_isolation=serializable`;
    await withConnection(strict, async (db) => {
      await migratePostgres(db, 0);
      expect(await db.get('SHOW default_transaction_isolation')).toEqual({ default_transaction_isolation: 'serializable' });
      expect(await scopeTransaction(db, 's', () => db.get('SHOW transaction_isolation'))).toEqual({ transaction_isolation: 'read committed' });
    });
  });

  it('makes a second writer of the same scope wait, and answers BUSY (exit 75) when its lock timeout passes', async () => {
    const { url } = freshSchemaUrl();
    await withConnection(url, async (first) => {
      await migratePostgres(first, 0);
      await withConnection(url, async (second) => {
        await scopeTransaction(first, '/repo', async () => {
          const started = Date.now();
          const error = await caught(() => scopeTransaction(second, '/repo', () => 'never', { lockTimeoutMs: 200 }));
          expect(error.code).toBe('BUSY');
          expect(EXIT_CODES[error.code]).toBe(75);
          expect(error.details.sqlstate).toBe('55P03');
          expect(Date.now() - started).toBeGreaterThanOrEqual(150);
          // another scope is not blocked
          expect(await scopeTransaction(second, '/other', () => 'done', { lockTimeoutMs: 200 })).toBe('done');
        });
        // the first committed: the scope is free again, and the failed transaction left the connection usable
        expect(await scopeTransaction(second, '/repo', () => 'now', { lockTimeoutMs: 200 })).toBe('now');
      });
    });
  });

  it("waits for a lock the call's lock wait, whichever driver; a lock_timeout in the URL's own options wins", async () => {
    const shown = (url: string) => withConnection(url, async (db) => (await db.get<{ lock_timeout: string }>('SHOW lock_timeout'))!.lock_timeout, { lockTimeoutMs: 1234 });
    expect(await shown(serverUrl())).toBe('1234ms');
    for (const spelling of ['-c lock_timeout=777', '--lock-timeout=777', '-c LOCK_TIMEOUT=777']) {
      const theirs = serverUrl().replace('?', `?options=${encodeURIComponent(spelling)}&`);
      expect([spelling, await shown(theirs)]).toEqual([spelling, '777ms']);
    }
  });

  it('reads the server clock at the moment of the call, in epoch milliseconds', async () => {
    await withConnection(serverUrl(), async (db) => {
      const before = Date.now();
      const first = await db.serverNowMs();
      await db.exec('SELECT pg_sleep(0.05)');
      const second = await db.serverNowMs();
      expect(Number.isInteger(first)).toBe(true);
      expect(Math.abs(first - before)).toBeLessThan(5_000); // one machine: one clock
      expect(second - first).toBeGreaterThanOrEqual(45); // clock_timestamp(), not the transaction's start
    });
  });

  it('between readings, the time advanced on this host keeps to the server clock: no round trip per transaction', async () => {
    await withConnection(serverUrl(), async (db) => {
      const estimates: number[] = [];
      let previousRoundTrip = 0;
      for (let i = 0; i < 5; i++) {
        await db.exec('SELECT pg_sleep(0.03)');
        const asked = performance.now();
        estimates.push(await db.serverNowMs());
        const reading = await db.readServerClock();
        // Each reading is taken somewhere in its own round trip: the estimate (from the previous reading) and the
        // fresh one are within those two round trips of each other (a loaded machine stretches both).
        const roundTrip = performance.now() - asked;
        expect(Math.abs(estimates.at(-1)! - reading)).toBeLessThanOrEqual(5 + roundTrip + previousRoundTrip);
        previousRoundTrip = roundTrip;
      }
      expect(estimates).toEqual([...estimates].sort((a, b) => a - b));
    });
  });
});

describe('several statements in one exchange', () => {
  it('answers each in order, and after a refused one reports its error once every reply is read', async () => {
    await withConnection(serverUrl(), async (db) => {
      db.prefetch('SELECT 1 AS a', []); // sent with the next statement, in one exchange
      expect(await db.get('SELECT ?::int + 1 AS b', [41])).toEqual({ b: 42 });
      expect(db.takePrefetched('SELECT 1 AS a', [])).toEqual([{ a: 1 }]);
      db.prefetch('SELECT 1/0 AS never', []);
      const error = await caught(() => db.get('SELECT 2 AS two'));
      expect(error.details.sqlstate).toBe('22012');
      expect(await db.get('SELECT 3 AS three')).toEqual({ three: 3 }); // every reply was read: the next answer is its own
    });
  });

  it('locks the scope and then runs the next statement; a scope without its row gets one first', async () => {
    const { url } = freshSchemaUrl();
    await withConnection(url, async (db) => {
      await migratePostgres(db, 0);
      await withConnection(url, async (other) => {
        await db.exec('BEGIN');
        expect(await db.lockScopeAnd('/new', 'SELECT count(*) AS n FROM scopes')).toEqual([{ n: 1 }]); // run again once the row existed
        await db.exec('COMMIT');
        await db.exec('BEGIN');
        expect(await db.lockScopeAnd('/new', "SELECT scope FROM scopes WHERE scope = '/new'")).toEqual([{ scope: '/new' }]);
        expect((await caught(() => other.get("SELECT scope FROM scopes WHERE scope = '/new' FOR UPDATE NOWAIT"))).details.sqlstate).toBe('55P03');
        await db.exec('ROLLBACK');
      });
    });
  });

  it('a read announced ahead goes with the next statement and is answered once; a write sent later fails the statement it goes with', async () => {
    const { url } = freshSchemaUrl();
    await withConnection(url, async (db) => {
      await migratePostgres(db, 0);
      await db.exec('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      db.prefetch('SELECT ?::int AS n', [7]);
      expect(await db.get('SELECT 1 AS one')).toEqual({ one: 1 });
      expect(db.takePrefetched('SELECT ?::int AS n', [7])).toEqual([{ n: 7 }]);
      expect(db.takePrefetched('SELECT ?::int AS n', [7])).toBeUndefined(); // once
      db.prefetch('SELECT 2 AS never_sent', []);
      await db.exec('COMMIT');
      db.dropPrefetched();
      expect(await db.get('SELECT 3 AS three')).toEqual({ three: 3 }); // what was never sent stays unsent

      await db.exec('BEGIN');
      db.runLater('INSERT INTO owners (owner, last_seen) VALUES (?, ?)', ['later', 1]);
      expect(await db.all("SELECT owner FROM owners WHERE owner = 'later'")).toEqual([{ owner: 'later' }]); // it went first
      const failure = await caught(async () => {
        db.runLater('INSERT INTO owners (owner, last_seen) VALUES (?, ?)', ['later', 2]); // a duplicate key
        await db.exec('COMMIT');
      });
      expect(failure.details.sqlstate).toBe('23505');
      expect(await db.all("SELECT owner FROM owners WHERE owner = 'later'")).toEqual([]); // the whole transaction is undone
    });
  });

  it('the store honours an announced read only inside a read transaction', async () => {
    const { url } = freshSchemaUrl();
    await withConnection(url, (admin) => migratePostgres(admin, 0));
    const db = PgConnection.open(url);
    try {
      const count = 'SELECT count(*) AS n FROM owners';
      const read = await db.read(async () => {
        db.prefetch!(count, []);
        await db.prepare('SELECT 1 AS one').get();
        return db.prepare(count).get();
      });
      expect(read).toEqual({ n: 0 });
      const written = await db.write({ scopes: ['/repo'] }, async () => {
        db.prefetch!(count, []); // a write is not one snapshot: ignored
        await db.prepare('INSERT INTO owners (owner, last_seen) VALUES (?, ?)').run('me', 1);
        return db.prepare(count).get();
      });
      expect(written).toEqual({ n: 1 });
    } finally {
      db.close();
    }
  });

  it('a write’s clock check takes the newest event read with its lock; a later read, or one after the write’s own statements, asks again', async () => {
    const { url } = freshSchemaUrl();
    await withConnection(url, (admin) => migratePostgres(admin, 0));
    const db = PgConnection.open(url);
    try {
      const insert = (at: number) => db.prepare('INSERT INTO events (type, scope, owner, created_at) VALUES (?, ?, ?, ?)').run('heartbeat', '/repo', 'me', at);
      await db.write({ scopes: ['/repo'] }, async () => insert(1_000));
      const seen = await db.write({ scopes: ['/repo'] }, async () => {
        const first = await newestEventTime(db); // read with the lock
        await insert(2_000);
        return [first, await newestEventTime(db)];
      });
      expect(seen).toEqual([1_000, 2_000]);
      expect(await db.write({ scopes: ['/repo'] }, async () => (await insert(3_000), await newestEventTime(db)))).toBe(3_000);
    } finally {
      db.close();
    }
  });
});

describe('errors', () => {
  it('a statement past statement_timeout is BUSY (exit 75)', async () => {
    await withConnection(
      serverUrl(),
      async (db) => {
        const error = await caught(() => db.exec('SELECT pg_sleep(2)'));
        expect(error.code).toBe('BUSY');
        expect(error.details.sqlstate).toBe('57014');
        expect(await db.get('SELECT 1 AS still')).toEqual({ still: 1 });
      },
      { statementTimeoutMs: 100 },
    );
  });

  it('a refused connection is DB_UNAVAILABLE (exit 69)', async () => {
    const port = await unusedPort();
    const error = await caught(() => PostgresConnection.open(`postgresql://postgres@127.0.0.1:${port}/postgres`).ready());
    expect(error.code).toBe('DB_UNAVAILABLE');
    expect(EXIT_CODES[error.code]).toBe(69);
    expect(error.message).toContain(`127.0.0.1:${port}`);
  });

  it('a missing ic schema is DB_UNAVAILABLE with the hint to create it', async () => {
    await withConnection(freshSchemaUrl().url, async (db) => {
      const error = await caught(async () => db.all('SELECT * FROM locks'));
      expect(error.code).toBe('DB_UNAVAILABLE');
      expect(error.details.sqlstate).toBe('42P01');
      expect(error.message).toContain('ic init');
    });
  });

  it('a server that accepts but never answers is DB_UNAVAILABLE after the connect timeout, not a hang', async () => {
    const silent = await listen();
    try {
      const port = (silent.address() as { port: number }).port;
      const started = Date.now();
      const error = await caught(() => PostgresConnection.open(`postgresql://postgres@127.0.0.1:${port}/postgres`, { connectTimeoutMs: 2_000 }).ready());
      expect(error.code).toBe('DB_UNAVAILABLE');
      expect(Date.now() - started).toBeLessThan(15_000);
    } finally {
      silent.close();
    }
  });

  it('PGCONNECT_TIMEOUT sets the connect timeout when the URL has none (the URL’s wins; 5 s otherwise)', async () => {
    const silent = await listen();
    try {
      const port = (silent.address() as { port: number }).port;
      const started = Date.now();
      const env = { ...process.env, PGCONNECT_TIMEOUT: '7' };
      const error = await caught(() => PostgresConnection.open(`postgresql://postgres@127.0.0.1:${port}/postgres`, { env }).ready());
      expect(error.code).toBe('DB_UNAVAILABLE');
      expect(Date.now() - started).toBeGreaterThanOrEqual(6_500); // not the default 5 s
    } finally {
      silent.close();
    }
  });

  it('a URL that cannot be used as written is USAGE (64), saying why, and a missing certificate file is named', async () => {
    const cases: [string, string][] = [
      ['postgresql://localhost:99999/x', 'the port "99999" is not a valid port'],
      ['postgresql://h:abc/db', 'the port "abc" is not a valid port'],
      ['postgresql://h:0/db', 'the port "0" is not a valid port'],
      ['postgresql://[oops/db', 'not a well-formed URL'],
      ['postgresql://h/db?sslmode=bogus', 'sslmode must be one of'],
    ];
    for (const [url, saying] of cases) {
      const error = await caught(() => PostgresConnection.open(url).ready());
      expect(error.code, url).toBe('USAGE');
      expect(EXIT_CODES[error.code]).toBe(64);
      expect(error.message).toContain(saying);
      expect(error.message).toContain(url);
    }
    const missing = await caught(() => PostgresConnection.open('postgresql://h/db?sslmode=verify-full&sslrootcert=/nonexistent.crt').ready());
    expect(missing.code).toBe('DB_UNAVAILABLE');
    expect(missing.message).toContain('the sslrootcert file /nonexistent.crt does not exist');
  });

  it('a connection ended by the server (a restart, an administrator) answers BUSY, then BUSY again while broken', async () => {
    await withConnection(serverUrl(), async (admin) => {
      const victim = connect();
      try {
        const pid = (await victim.get<{ pid: number }>('SELECT pg_backend_pid() AS pid'))!.pid;
        await admin.get('SELECT pg_terminate_backend(?::int)', [pid]);
        const first = await caught(() => victim.get('SELECT 1'));
        expect(first.code).toBe('BUSY');
        const second = await caught(() => victim.get('SELECT 1'));
        expect(second.code).toBe('BUSY');
        expect(second.message).toContain('lost');
      } finally {
        victim.close();
      }
    });
  });
});

describe('passwords never reach a message', () => {
  const secret = 'Pa55:w@rd/with?odd&chars=%';
  const encoded = encodeURIComponent(secret);
  let port = 0;

  beforeAll(async () => {
    port = tcpPort();
    await withConnection(serverUrl(), async (db) => {
      await db.exec('DROP ROLE IF EXISTS ic_secret_user');
      await db.exec(`CREATE ROLE ic_secret_user LOGIN PASSWORD '${secret.replace(/'/g, "''")}'`);
    });
  });

  afterAll(async () => {
    await withConnection(serverUrl(), (db) => db.exec('DROP ROLE IF EXISTS ic_secret_user'));
  });

  function expectHidden(error: IcError, ...secrets: string[]): void {
    const shown = everythingShown(error);
    for (const hidden of secrets) expect(shown).not.toContain(hidden);
    expect(shown).toContain('***');
  }

  it('connects with a percent-encoded password from the URL', async () => {
    await withConnection(`postgresql://ic_secret_user:${encoded}@127.0.0.1:${port}/postgres`, async (db) => {
      expect(await db.get('SELECT current_user AS who')).toEqual({ who: 'ic_secret_user' });
    });
  });

  it('takes credentials from PG* variables or a password file when the URL has none (libpq reads them)', async () => {
    const url = `postgresql://127.0.0.1:${port}/postgres`;
    const saved = { PGUSER: process.env.PGUSER, PGPASSWORD: process.env.PGPASSWORD, PGPASSFILE: process.env.PGPASSFILE };
    const dir = mkdtempSync(join(tmpdir(), 'ic-pgpass-'));
    try {
      process.env.PGUSER = 'ic_secret_user';
      process.env.PGPASSWORD = secret;
      await withConnection(url, async (db) => expect(await db.get('SELECT current_user AS who')).toEqual({ who: 'ic_secret_user' }));
      delete process.env.PGPASSWORD;
      const passfile = join(dir, 'pgpass');
      writeFileSync(passfile, `127.0.0.1:${port}:postgres:ic_secret_user:${secret.replace(/[:\\]/g, '\\$&')}\n`, { mode: 0o600 });
      process.env.PGPASSFILE = passfile;
      const warnings: string[] = [];
      const onWarning = (warning: Error): void => void warnings.push(warning.message);
      process.on('warning', onWarning);
      try {
        await withConnection(url, async (db) => expect(await db.get('SELECT current_user AS who')).toEqual({ who: 'ic_secret_user' }));
      } finally {
        process.off('warning', onWarning);
      }
      expect(warnings.join('\n')).not.toContain('pgpass');
      delete process.env.PGPASSFILE; // libpq's passfile= parameter names it too
      await withConnection(`${url}?passfile=${encodeURIComponent(passfile)}`, async (db) => expect(await db.get('SELECT current_user AS who')).toEqual({ who: 'ic_secret_user' }));
      process.env.PGPASSFILE = passfile; // pg's "pgpass support is deprecated" (ic reads the file itself)
      // A file others may read is ignored, with libpq's warning.
      chmodSync(passfile, 0o644);
      const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
      try {
        const refused = await caught(() => withConnection(url, (db) => db.get('SELECT 1')));
        expect(refused.code).toBe('DB_UNAVAILABLE');
        expect(stderr.mock.calls.join('')).toContain(`WARNING: password file "${passfile}" has group or world access; permissions should be u=rw (0600) or less`);
      } finally {
        stderr.mockRestore();
      }
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('hides a wrong password given in the URL', async () => {
    const wrong = 'Wrong-Secret-8431';
    const error = await caught(async () => PostgresConnection.open(`postgresql://ic_secret_user:${wrong}@127.0.0.1:${port}/postgres`).ready());
    expect(error.code).toBe('DB_UNAVAILABLE');
    expect(error.message).toContain('password authentication failed');
    expectHidden(error, wrong);
  });

  it('hides a right password when the database is missing', async () => {
    const error = await caught(async () => PostgresConnection.open(`postgresql://ic_secret_user:${encoded}@127.0.0.1:${port}/no_such_database`).ready());
    expect(error.code).toBe('DB_UNAVAILABLE');
    expect(error.message).toContain('no_such_database');
    expectHidden(error, secret, encoded);
  });

  it('hides a password given as a password= parameter, or in PGPASSWORD', async () => {
    const wrong = 'Param-Secret-5512';
    const byParameter = await caught(async () => PostgresConnection.open(`postgresql://ic_secret_user@127.0.0.1:${port}/postgres?password=${wrong}`).ready());
    expectHidden(byParameter, wrong);
    const fromEnv = 'Env-Secret-7719';
    process.env.PGPASSWORD = fromEnv;
    try {
      const byEnv = await caught(async () => PostgresConnection.open(`postgresql://ic_secret_user@127.0.0.1:${port}/postgres`).ready());
      expect(byEnv.code).toBe('DB_UNAVAILABLE');
      expect(everythingShown(byEnv)).not.toContain(fromEnv);
    } finally {
      delete process.env.PGPASSWORD;
    }
  });

  it('hides the password when a server error quotes it back', async () => {
    await withConnection(`postgresql://ic_secret_user:${encoded}@127.0.0.1:${port}/postgres`, async (db) => {
      const error = await caught(async () => db.get('SELECT ?::int AS n', [secret]));
      expect(error.code).toBe('INTERNAL');
      expect(error.message).toContain('invalid input syntax');
      expectHidden(error, secret);
      expect(db.shownUrl).toBe(`postgresql://ic_secret_user:***@127.0.0.1:${port}/postgres`);
    });
  });
});

async function listen(): Promise<Server> {
  return await new Promise((resolve) => {
    const server = createServer(() => {
      // accept and say nothing
    });
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

async function unusedPort(): Promise<number> {
  const server = await listen();
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
