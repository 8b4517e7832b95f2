import init from '../../schema/0001_init.sql';
import runProcesses from '../../schema/0002_run_processes.sql';

// Append-only: a landed migration is never edited; a change is a new file and a new entry.
export const MIGRATIONS: readonly { version: number; name: string; sql: string }[] = [
  { version: 1, name: '0001_init', sql: init },
  { version: 2, name: '0002_run_processes', sql: runProcesses },
];

export const LATEST_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;
