import init from '../../schema/0001_init.sql';
import sessions from '../../schema/0003_sessions.sql';

// Append-only: a landed migration is never edited; a change is a new file and a new entry.
export const MIGRATIONS: readonly { version: number; name: string; sql: string }[] = [
  { version: 1, name: '0001_init', sql: init },
  { version: 3, name: '0003_sessions', sql: sessions },
];

export const LATEST_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;
