import { dialect, type Connection } from './connection';
import type { StoredLock } from './locks';

// The command of a `lock NAME -- CMD` run, as schema/0006_run_processes.sql records it.
export interface RunProcessRow {
  host: string;
  pid: number;
  started: string;
}

// INSERT OR REPLACE is SQLite's; PostgreSQL replaces the row on its key with ON CONFLICT.
const RECORD_RUN = dialect({
  sqlite: 'INSERT OR REPLACE INTO run_processes (lock_seq, host, pid, started) VALUES (?, ?, ?, ?)',
  postgres: 'INSERT INTO run_processes (lock_seq, host, pid, started) VALUES (?, ?, ?, ?) ON CONFLICT (lock_seq) DO UPDATE SET host = excluded.host, pid = excluded.pid, started = excluded.started',
});

export async function recordRunProcess(db: Connection, lockSeq: number, row: RunProcessRow): Promise<void> {
  await db.prepare(RECORD_RUN).run(lockSeq, row.host, row.pid, row.started);
}

export async function forgetRunProcess(db: Connection, lockSeq: number): Promise<void> {
  await db.prepare('DELETE FROM run_processes WHERE lock_seq = ?').run(lockSeq);
}

// Every run lock whose lease lapsed while its command was recorded, in any scope: what `list` and `who`
// still show while that command lives. The table holds only runs not yet ended, so it is small.
export async function allLapsedRunLocks(db: Connection, now: number): Promise<(StoredLock & RunProcessRow)[]> {
  return (await db
    .prepare(
      `SELECT l.seq, l.id, l.token, l.type, l.scope, l.pattern, l.base, l.owner, l.mode, l.reason, l.created_at, l.expires_at, l.ttl_ms, l.released_at, l.release_reason,
            r.host, r.pid, r.started
       FROM run_processes r JOIN locks l ON l.seq = r.lock_seq
      WHERE l.type = 'named' AND l.expires_at <= ? AND (l.released_at IS NULL OR l.release_reason = 'expired')
      ORDER BY l.seq`,
    )
    .all(now)) as (StoredLock & RunProcessRow)[];
}
