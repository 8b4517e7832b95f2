// The engine the store, core-command and lifecycle tests run on (docs/postgres.md, "Tests"): SQLite unless
// IC_TEST_ENGINE=postgres, which `npm run test:postgres` sets for the files it shares with `npm test`
// (test/postgres/conformance.ts). On PostgreSQL every temp repository and test store gets a database of its
// own: a fresh schema (search_path in the URL) on the suite's throwaway server, dropped on cleanup.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { describe, inject, it, test } from 'vitest';
import { withParameter } from '../../src/store/postgres/url';

export type TestEngine = 'sqlite' | 'postgres';

export const TEST_ENGINE: TestEngine = process.env.IC_TEST_ENGINE === 'postgres' ? 'postgres' : 'sqlite';
export const onPostgres = TEST_ENGINE === 'postgres';

// A test about SQLite itself (its file, WAL, pragmas, a corrupt file, `doctor` on SQLite): it runs on SQLite
// and is reported as skipped on PostgreSQL, never dropped silently. Write `sqliteOnly.it(...)`.
export const sqliteOnly = {
  it: onPostgres ? it.skip : it,
  test: onPostgres ? test.skip : test,
  describe: onPostgres ? describe.skip : describe,
};

// A test that needs a PostgreSQL server of the suite (test/postgres/global-setup.ts).
export const postgresOnly = {
  it: onPostgres ? it : it.skip,
  describe: onPostgres ? describe : describe.skip,
};

// On PostgreSQL the scope is the project's identity (`git config ic.project`, else the root commit), not a
// path: a test directory becomes a git repository named after its own database, so no two tests share a scope.
export function nameTestProject(dir: string, database: TestDatabase): void {
  execFileSync('git', ['init', '-q', dir], { stdio: 'ignore' });
  execFileSync('git', ['-C', dir, 'config', 'ic.project', projectKeyOf(database)], { stdio: 'ignore' });
}

export function projectKeyOf(database: TestDatabase): string {
  return `test-${database.schema}`;
}

// Tests move time with IC_NOW (bin) or an injected clock (use cases). On PostgreSQL the server's clock decides
// unless IC_TEST_PG_CLIENT_CLOCK=1 (tests only, with IC_TEST_CLOCK=1) lets the client's clock stand in; the
// rules that judge the time are the same. test/postgres/two-hosts.test.ts runs without it, on the server's clock.
export const POSTGRES_CLIENT_CLOCK = { IC_TEST_CLOCK: '1', IC_TEST_PG_CLIENT_CLOCK: '1' } as const;

// The tests' schemas are dropped and looked at by psql: synchronous, as the tests that ask are, and no
// driver for the SQLite runs to load.
function psql(sql: string): string {
  return execFileSync('psql', ['-qXAt', inject('pgUrl'), '-c', `SET client_min_messages = warning; ${sql}`], { encoding: 'utf8' });
}

export interface TestDatabase {
  /** What IC_DB / --db takes: the suite's server, with ic's tables in a schema of their own. */
  url: string;
  schema: string;
  drop: () => void;
}

// A fresh, empty ic database on the suite's server. ic creates its tables on first write (as it creates a
// SQLite file); `drop` removes them with everything in them.
export function freshPostgresDatabase(): TestDatabase {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const url = withParameter(inject('pgUrl'), 'options', `-c search_path=${schema}`);
  return { url, schema, drop: () => void psql(`DROP SCHEMA IF EXISTS ${schema} CASCADE`) };
}

// Whether ic has created its tables in that database (the counterpart of a SQLite file existing).
export function postgresDatabaseExists(url: string): boolean {
  const schema = /search_path=(t_[0-9a-f]+)/.exec(decodeURIComponent(url))?.[1];
  if (!schema) throw new Error(`not a test database: ${url}`);
  return psql(`SELECT 1 FROM information_schema.tables WHERE table_schema = '${schema}' LIMIT 1`).trim() === '1'; // a schema name of t_ and hex only
}
