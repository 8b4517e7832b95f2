import type { Connection } from './connection';
import { sqliteHandle } from './sqlite-connection';

// SQLite checkpoints the WAL at the end of whichever commit takes it past 1,000 pages, inside that commit's
// call: a bulk operation's chunk would pay for copying everyone's pages to the database file. A bulk run
// turns that off for its own connection and checkpoints between chunks instead, with no transaction open
// (PASSIVE: it never waits for, or blocks, a reader or another writer).
// SQLite-only: another engine has no WAL of ic's to checkpoint, and both calls do nothing there.
export function pauseAutoCheckpoint(connection: Connection): () => void {
  const db = sqliteHandle(connection);
  if (db === undefined) return () => undefined;
  const before = db.pragma('wal_autocheckpoint', { simple: true }) as number;
  db.pragma('wal_autocheckpoint = 0');
  return () => void db.pragma(`wal_autocheckpoint = ${before}`);
}

export function checkpointPassive(connection: Connection): void {
  const db = sqliteHandle(connection);
  if (db === undefined || db.memory || db.inTransaction) return;
  db.pragma('wal_checkpoint(PASSIVE)');
}
