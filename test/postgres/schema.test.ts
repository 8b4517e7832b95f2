// ic's PostgreSQL schema (schema/postgres/0001_init.sql) and its migration runner, on the suite's real server.
import { afterEach, describe, expect, it } from 'vitest';
import { openSqlite } from '../../src/store/driver';
import { migrate } from '../../src/store/migrate';
import { migratePostgres, postgresSchemaVersion } from '../../src/store/postgres/migrate';
import { POSTGRES_LATEST_VERSION } from '../../src/store/postgres/migrations';
import type { PostgresConnection } from '../../src/store/postgres/connection';
import { IcError } from '../../src/core/errors';
import { freshSchemaUrl, serverUrl, withConnection } from './support';
import { worker } from './process';

const created: string[] = [];
afterEach(async () => {
  await withConnection(serverUrl(), async (db) => {
    for (const schema of created.splice(0)) await db.exec(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  });
});

function fresh(): { url: string; schema: string } {
  const target = freshSchemaUrl();
  created.push(target.schema);
  return target;
}

async function columnsByTable(db: PostgresConnection, schema: string): Promise<Map<string, { name: string; type: string; collation: string | null }[]>> {
  const rows = await db.all<{ table_name: string; column_name: string; data_type: string; collation_name: string | null }>(
    'SELECT table_name, column_name, data_type, collation_name FROM information_schema.columns WHERE table_schema = ? ORDER BY table_name, ordinal_position',
    [schema],
  );
  const tables = new Map<string, { name: string; type: string; collation: string | null }[]>();
  for (const row of rows) {
    const list = tables.get(row.table_name) ?? [];
    list.push({ name: row.column_name, type: row.data_type, collation: row.collation_name });
    tables.set(row.table_name, list);
  }
  return tables;
}

describe('the PostgreSQL schema', () => {
  it('is created once: a second run applies nothing and keeps the data', async () => {
    const { url } = fresh();
    await withConnection(url, async (db) => {
      expect(await postgresSchemaVersion(db)).toBe(0);
      expect(await migratePostgres(db, 1_000)).toEqual([1, 2, 3, 4, 5]);
      await db.run('INSERT INTO settings (name, value, updated_at) VALUES (?, ?, ?)', ['lock_delay', '5s', 1]);
      expect(await migratePostgres(db, 2_000)).toEqual([]);
      expect(await postgresSchemaVersion(db)).toBe(POSTGRES_LATEST_VERSION);
      expect(await db.all('SELECT version, name, applied_at FROM schema_migrations ORDER BY version')).toEqual([
        { version: 1, name: '0001_init', applied_at: 1_000 },
        { version: 2, name: '0002_projects', applied_at: 1_000 },
        { version: 3, name: '0003_consumer_xact', applied_at: 1_000 },
        { version: 4, name: '0004_custody_blobs', applied_at: 1_000 },
        { version: 5, name: '0005_consumer_project', applied_at: 1_000 },
      ]);
      expect(await db.all('SELECT name, value FROM settings')).toEqual([{ name: 'lock_delay', value: '5s' }]);
    });
  });

  it('has every table and column of the SQLite schema, with integers as BIGINT', async () => {
    const { url, schema } = fresh();
    const sqlite = openSqlite(':memory:');
    migrate(sqlite, ':memory:', 0);
    const sqliteTables = sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as { name: string }[];
    await withConnection(url, async (db) => {
      await migratePostgres(db, 0);
      const pgTables = await columnsByTable(db, schema);
      for (const { name } of sqliteTables) {
        const sqliteColumns = sqlite.prepare(`SELECT name, type FROM pragma_table_info('${name}')`).all() as { name: string; type: string }[];
        const pgColumns = pgTables.get(name);
        expect(pgColumns, `table ${name}`).toBeDefined();
        for (const column of sqliteColumns) {
          const pg = pgColumns!.find((c) => c.name === column.name);
          expect(pg, `${name}.${column.name}`).toBeDefined();
          expect(pg!.type, `${name}.${column.name}`).toBe(column.type === 'INTEGER' ? 'bigint' : 'text');
        }
      }
      // PostgreSQL's additions: the scope rows the transactions lock, and each event's transaction id
      expect(pgTables.get('scopes')?.map((c) => c.name)).toEqual(['scope', 'created_at']);
      expect(pgTables.get('events')?.map((c) => c.name)).toContain('xact');
    });
    sqlite.close();
  });

  it('compares every text column in byte order (COLLATE "C"), as SQLite does, whatever the database locale', async () => {
    const { url, schema } = fresh();
    await withConnection(url, async (db) => {
      await migratePostgres(db, 0);
      const text = [...(await columnsByTable(db, schema)).entries()]
        .filter(([table]) => table !== 'schema_migrations')
        .flatMap(([table, columns]) => columns.filter((c) => c.type === 'text').map((c) => ({ column: `${table}.${c.name}`, collation: c.collation })));
      expect(text.length).toBeGreaterThan(30);
      expect(text.filter((c) => c.collation !== 'C')).toEqual([]);
      // the range read of src/store/locks.ts (`base >= ? AND base < ?`) on names a locale would order otherwise
      const bases = ['B', 'a', 'a/b', 'a0', 'ä', 'Z/x', '_x'];
      for (const [i, base] of bases.entries()) {
        await db.run("INSERT INTO locks (seq, id, token, type, scope, pattern, base, owner, mode, created_at, expires_at, ttl_ms) VALUES (?, ?, ?, 'file', 's', ?, ?, 'o', 'exclusive', 0, 1, 1)", [
          i + 1,
          `id${i}`,
          i + 1,
          base,
          base,
        ]);
      }
      const sorted = (await db.all<{ base: string }>('SELECT base FROM locks ORDER BY base')).map((row) => row.base);
      expect(sorted).toEqual([...bases].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y))));
      expect((await db.all<{ base: string }>("SELECT base FROM locks WHERE base >= 'a/' AND base < 'a0' ORDER BY base")).map((row) => row.base)).toEqual(['a/b']);
    });
  });

  it('gives events rising ids from a sequence, by default or taken first for a grant', async () => {
    const { url } = fresh();
    await withConnection(url, async (db) => {
      await migratePostgres(db, 0);
      const insert = "INSERT INTO events (type, scope, owner, created_at) VALUES ('heartbeat', 's', 'o', 0) RETURNING id";
      const first = (await db.get<{ id: number }>(insert))!.id;
      const taken = (await db.get<{ id: number }>("SELECT nextval('events_id_seq') AS id"))!.id;
      await db.run("INSERT INTO events (id, type, scope, owner, created_at) VALUES (?, 'reserved', 's', 'o', 0)", [taken]);
      const last = (await db.get<{ id: number }>(insert))!.id;
      expect(taken).toBeGreaterThan(first);
      expect(last).toBeGreaterThan(taken);
      expect((await db.all('SELECT id FROM events ORDER BY id')).length).toBe(3);
    });
  });

  it('is created exactly once by processes racing to create it', async () => {
    const { url } = fresh();
    const results = await Promise.all(Array.from({ length: 6 }, () => worker('migrate', { url })));
    for (const result of results) expect(result.exitCode, result.stderr).toBe(0);
    const applied = results.map((result) => JSON.parse(result.stdout) as number[]);
    expect(applied.filter((versions) => versions.length > 0)).toEqual([[1, 2, 3, 4, 5]]);
    await withConnection(url, async (db) =>
      expect(await db.all('SELECT version FROM schema_migrations ORDER BY version')).toEqual([{ version: 1 }, { version: 2 }, { version: 3 }, { version: 4 }, { version: 5 }]),
    );
  });

  it('leaves a schema from a newer ic untouched and says to upgrade (DB_UNAVAILABLE)', async () => {
    const { url } = fresh();
    await withConnection(url, async (db) => {
      await migratePostgres(db, 0);
      await db.run('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)', [POSTGRES_LATEST_VERSION + 1, 'from_the_future', 0]);
      let error: unknown;
      try {
        await migratePostgres(db, 0);
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(IcError);
      expect((error as IcError).code).toBe('DB_UNAVAILABLE');
      expect((error as IcError).message).toContain('upgrade ic');
    });
  });
});
