import type Database from 'better-sqlite3';
import { IcError } from '../core/errors';
import { LATEST_VERSION, MIGRATIONS } from './migrations';
import { IC_APPLICATION_ID } from './application-id';
import type { Connection } from './connection';
import { sqliteHandle } from './sqlite-connection';

// SQLite's migrations: the PRAGMA user_version counts the schema, applied in IMMEDIATE transactions.

export function schemaVersion(db: Database.Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

// The schema version of a store on any engine: SQLite counts it in user_version; another engine's
// migrations record themselves in schema_migrations.
export async function storeSchemaVersion(connection: Connection): Promise<number> {
  const db = sqliteHandle(connection);
  if (db !== undefined) return schemaVersion(db);
  return ((await connection.prepare('SELECT coalesce(max(version), 0) AS version FROM schema_migrations').get()) as { version: number }).version;
}

// A database from a newer ic is left untouched: we cannot know what its tables mean.
export function refuseNewerSchema(db: Database.Database, dbPath: string): number {
  const version = schemaVersion(db);
  if (version > LATEST_VERSION) {
    throw new IcError('DB_UNAVAILABLE', `the database at ${dbPath} has schema version ${version}, newer than this ic supports (${LATEST_VERSION}); upgrade ic`, {
      path: dbPath,
      schema_version: version,
      supported: LATEST_VERSION,
    });
  }
  return version;
}

// Applies each pending migration in its own IMMEDIATE transaction, re-checking the version inside it
// so that two processes opening a new database at once never apply one migration twice.
export function migrate(db: Database.Database, dbPath: string, now: number): void {
  if (refuseNewerSchema(db, dbPath) === LATEST_VERSION) return;
  for (const migration of MIGRATIONS) {
    db.transaction(() => {
      if (refuseNewerSchema(db, dbPath) >= migration.version) return;
      db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT');
      db.exec(migration.sql);
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(migration.version, migration.name, now);
      db.pragma(`user_version = ${migration.version}`);
      db.pragma(`application_id = ${IC_APPLICATION_ID}`); // in the transaction that creates the tables
    }).immediate();
  }
  // The schema into the file itself, whose header is how ic knows its own (db-file.ts): a hook's commits
  // stay in the WAL (cli/hook-main.ts), so a database a hook created would otherwise wait for 1,000 pages.
  db.pragma('wal_checkpoint(PASSIVE)');
}
