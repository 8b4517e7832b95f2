import init from '../../schema/0001_init.sql';
import settings from '../../schema/0002_settings.sql';
import sessions from '../../schema/0003_sessions.sql';
import custody from '../../schema/0004_custody.sql';
import scopeNames from '../../schema/0005_scope_names.sql';
import runProcesses from '../../schema/0006_run_processes.sql';
import custodyDigest from '../../schema/0007_custody_digest.sql';

// Append-only: a landed migration is never edited; a change is a new file and a new entry.
export const MIGRATIONS: readonly { version: number; name: string; sql: string }[] = [
  { version: 1, name: '0001_init', sql: init },
  { version: 2, name: '0002_settings', sql: settings },
  { version: 3, name: '0003_sessions', sql: sessions },
  { version: 4, name: '0004_custody', sql: custody },
  { version: 5, name: '0005_scope_names', sql: scopeNames },
  { version: 6, name: '0006_run_processes', sql: runProcesses },
  { version: 7, name: '0007_custody_digest', sql: custodyDigest },
];

export const LATEST_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;
