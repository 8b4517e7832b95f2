import { IcError } from '../../core/errors';
import type { DbLocation } from '../discover';
import { newReport, type HealthCheck, type HealthReport } from '../health';
import { PostgresConnection } from './connection';
import { postgresSchemaVersion } from './migrate';
import { POSTGRES_LATEST_VERSION } from './migrations';

// A client clock this far from the server's is worth a warning: every time ic records comes from the server
// (docs/postgres.md, "The server's clock"), but people read times against their own clock.
const SKEW_WARNING_MS = 60_000;

// `ic doctor` on a PostgreSQL database: what SQLite's doctor checks of a file (header, integrity, journal,
// file system) is the server's business; this one checks what ic needs of the server. Nothing is created.
// `projectCheck`: the clone's project key against the server's bindings (coord/project-binding.ts), when in a clone.
export async function diagnosePostgres(location: DbLocation, env: NodeJS.ProcessEnv, clientNow: () => number, projectCheck?: (db: PostgresConnection) => Promise<HealthCheck>): Promise<HealthReport> {
  const report = newReport({ path: location.path, source: location.source, exists: false, size_bytes: null }, POSTGRES_LATEST_VERSION, { type: 'postgresql', mount_point: null, network: true });
  const checks = report.checks;
  let db: PostgresConnection;
  try {
    db = PostgresConnection.open(location.url ?? location.path, { env });
    await db.ready();
  } catch (error) {
    const message = error instanceof IcError ? error.message : String(error);
    checks.push({ name: 'connection', ok: false, severity: 'error', detail: message, fix: 'check that the server runs and the URL, PG* variables or ~/.pgpass are right' });
    report.status = 'unusable';
    return report;
  }
  try {
    checks.push({ name: 'connection', ok: true, detail: `${location.path} (chosen by ${location.source}), ${db.session.tls ? 'encrypted (TLS)' : 'not encrypted'}` });
    const version = db.session.serverVersion;
    const major = Math.floor(version / 10_000);
    checks.push(
      major >= 14
        ? { name: 'server_version', ok: true, detail: `PostgreSQL ${major} (${version})` }
        : { name: 'server_version', ok: false, severity: 'error', detail: `PostgreSQL ${major} (${version}); ic needs 14 or newer`, fix: 'upgrade the server to PostgreSQL 14 or newer' },
    );
    const schema = await postgresSchemaVersion(db);
    report.schema_version = schema === 0 ? null : schema;
    report.db.exists = schema > 0;
    checks.push(
      schema === 0
        ? { name: 'schema', ok: true, detail: 'no ic schema yet; the first write creates it, or run `ic init --db URL`' }
        : schema > POSTGRES_LATEST_VERSION
          ? { name: 'schema', ok: false, severity: 'error', detail: `schema version ${schema}, newer than this ic supports (${POSTGRES_LATEST_VERSION})`, fix: 'upgrade ic' }
          : { name: 'schema', ok: true, detail: `schema version ${schema} of ${POSTGRES_LATEST_VERSION}${schema < POSTGRES_LATEST_VERSION ? ' (the next write upgrades it)' : ''}` },
    );
    if (schema > 0 && projectCheck) checks.push(await projectCheck(db));
    const before = clientNow();
    const server = await db.readServerClock();
    const skew = Math.round((before + clientNow()) / 2 - server);
    const skewText = `this client's clock is ${Math.abs(skew)} ms ${skew >= 0 ? 'ahead of' : 'behind'} the server's; the server's clock decides every time ic records`;
    checks.push(
      Math.abs(skew) <= SKEW_WARNING_MS
        ? { name: 'clock_skew', ok: true, detail: skewText }
        : { name: 'clock_skew', ok: false, severity: 'warning', detail: skewText, fix: "sync this host's clock (times shown are the server's)" },
    );
    const isolation = (await db.get<{ level: string }>("SELECT current_setting('default_transaction_isolation') AS level"))!.level;
    checks.push({ name: 'isolation', ok: true, detail: `server default ${isolation}; ic runs each write at READ COMMITTED holding its scope's row lock, each read at REPEATABLE READ` });
  } catch (error) {
    checks.push({ name: 'query', ok: false, severity: 'error', detail: error instanceof IcError ? error.message : String(error) });
  } finally {
    db.close();
  }
  const failed = checks.filter((check) => !check.ok);
  report.status = failed.some((check) => check.severity === 'error') ? 'unusable' : failed.length ? 'problems' : 'healthy';
  return report;
}
