import init from '../../schema/0001_init.sql';
import custody from '../../schema/0004_custody.sql';

// Append-only: a landed migration is never edited; a change is a new file and a new entry.
// 0002 and 0003 are reserved for work landing beside custody (0004).
export const MIGRATIONS: readonly { version: number; name: string; sql: string }[] = [
  { version: 1, name: '0001_init', sql: init },
  { version: 4, name: '0004_custody', sql: custody },
];

export const LATEST_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;
