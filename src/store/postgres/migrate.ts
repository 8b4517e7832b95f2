import { IcError } from '../../core/errors';
import type { PostgresConnection } from './connection';
import { POSTGRES_LATEST_VERSION, POSTGRES_MIGRATIONS } from './migrations';

// Serialises schema changes between processes (any key would do; this one is ic's own, fixed forever).
const MIGRATION_LOCK_KEY = 7_130_120_724;

// The schema ic's tables go to: the first schema of the connection's search_path (`ic` by default, see
// connection.ts). "$user" entries are skipped: they name no schema ic could create.
export async function targetSchema(db: PostgresConnection): Promise<string> {
  const path = (await db.get<{ search_path: string }>('SELECT current_setting(?) AS search_path', ['search_path']))!.search_path;
  const first = path
    .split(',')
    .map((entry) => entry.trim())
    .find((entry) => entry.length > 0 && entry !== '"$user"');
  if (!first) throw new IcError('DB_UNAVAILABLE', `the PostgreSQL connection's search_path (${path}) names no schema for ic's tables`, { url: db.shownUrl });
  return first.startsWith('"') ? first.slice(1, -1).replace(/""/g, '"') : first.toLowerCase();
}

function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

// The schema version of the database, 0 when ic's tables were never created in the target schema.
export async function postgresSchemaVersion(db: PostgresConnection): Promise<number> {
  const schema = await targetSchema(db);
  const table = (await db.get<{ present: boolean }>('SELECT to_regclass(?) IS NOT NULL AS present', [`${quoteIdentifier(schema)}.schema_migrations`]))!;
  if (!table.present) return 0;
  return (await db.get<{ version: number | null }>('SELECT max(version) AS version FROM schema_migrations'))!.version ?? 0;
}

function refuseNewer(version: number, db: PostgresConnection): void {
  if (version <= POSTGRES_LATEST_VERSION) return;
  throw new IcError('DB_UNAVAILABLE', `the PostgreSQL database at ${db.shownUrl} has ic schema version ${version}, newer than this ic supports (${POSTGRES_LATEST_VERSION}); upgrade ic`, {
    url: db.shownUrl,
    schema_version: version,
    supported: POSTGRES_LATEST_VERSION,
  });
}

// Creates or upgrades ic's schema. Everything happens in one transaction under an advisory lock: PostgreSQL's
// DDL is transactional, so two processes initialising one database at once apply each migration once, and a
// failure (or a killed process) leaves the schema as it was. Returns the versions applied.
export async function migratePostgres(db: PostgresConnection, now: number): Promise<number[]> {
  const current = await postgresSchemaVersion(db);
  refuseNewer(current, db);
  if (current === POSTGRES_LATEST_VERSION) return [];
  const applied: number[] = [];
  await db.exec(`BEGIN ISOLATION LEVEL READ COMMITTED; SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`);
  try {
    await db.exec(`CREATE SCHEMA IF NOT EXISTS ${quoteIdentifier(await targetSchema(db))}`);
    await db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)');
    const locked = await postgresSchemaVersion(db); // again, under the lock: another process may have gone first
    refuseNewer(locked, db);
    for (const migration of POSTGRES_MIGRATIONS) {
      if (migration.version <= locked) continue;
      await db.exec(migration.sql);
      await db.run('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)', [migration.version, migration.name, now]);
      applied.push(migration.version);
    }
    await db.exec('COMMIT');
  } catch (error) {
    await db.rollbackQuietly();
    throw error;
  }
  return applied;
}
