import { IcError } from '../../core/errors';
import type { Connection } from '../connection';
import { migratePostgres } from './migrate';
import { POSTGRES_LATEST_VERSION } from './migrations';
import { PgConnection } from './pg-connection';
import { SERVER_NOW_SQL, type PostgresConnection } from './connection';
import { keepShared, sharedConnection } from '../sqlite-connection';
import { noteCodePath } from '../../code-cache';

export interface OpenPostgresOptions {
  write: boolean;
  busyTimeoutMs: number;
  now: number;
  env: NodeJS.ProcessEnv;
}

// A PostgreSQL database named by --db/IC_DB. Writers create or upgrade ic's schema when it is not the
// latest (one statement when it is), as a SQLite writer creates its file; a reader of a database without
// the schema gets DB_UNAVAILABLE saying `ic init --db URL`.
export function openPostgres(url: string, options: OpenPostgresOptions): Connection {
  // Tests only: IC_TEST_CLOCK=1 with IC_TEST_PG_CLIENT_CLOCK=1 lets IC_NOW be the clock on PostgreSQL too (docs/postgres.md, "The server's clock").
  const clientClock = options.env.IC_TEST_CLOCK === '1' && options.env.IC_TEST_PG_CLIENT_CLOCK === '1';
  const key = `${options.write ? 'w' : 'r'}${clientClock ? 'c' : 's'}\0${url}`;
  const kept = sharedConnection(key, options.busyTimeoutMs);
  if (kept) return kept;
  noteCodePath('postgres');
  // Connects in the background; a writer's schema check goes first, before any call's statement.
  const db = PgConnection.open(url, { lockTimeoutMs: options.busyTimeoutMs, env: options.env, clientClock });
  if (options.write) db.pg.openWith((pg) => ensureSchema(pg, options.now));
  // In a hook process, one connection (one connect, one schema check) serves its opens; the process's exit closes it.
  return keepShared(key, db);
}

async function ensureSchema(db: PostgresConnection, now: number): Promise<void> {
  let version = 0;
  try {
    // The server's clock comes with it: the first transaction of the call then needs no round trip for it.
    const row = (await db.get<{ version: number | null; now: number }>(`SELECT max(version) AS version, ${SERVER_NOW_SQL} AS now FROM schema_migrations`))!;
    db.noteServerClock(row.now);
    version = row.version ?? 0;
  } catch (error) {
    if (!(error instanceof IcError) || error.details.sqlstate !== '42P01') throw error;
  }
  if (version !== POSTGRES_LATEST_VERSION) await migratePostgres(db, now);
}
