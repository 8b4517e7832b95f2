import { dialect, type Connection } from './connection';

// The store's clocks: the log's own time (its newest event; times dated in the future, and their repair), a
// monotonic clock for waits, and how long write transactions waited for the write lock and held it.

/** How far ahead of the clock a stored time may be before it counts as dated in the future (and how far back a write's clock may be). */
export const CLOCK_TOLERANCE_MS = 3_600_000;

// The time of the newest event (by id, the primary key: one index probe), or null in an empty log.
export async function newestEventTime(db: Connection): Promise<number | null> {
  const read = db.newestEventRead?.();
  if (read !== undefined) return read;
  const row = (await db.prepare(NEWEST_EVENT_SQL).get()) as { created_at: number } | undefined;
  return row ? row.created_at : null;
}

export const NEWEST_EVENT_SQL = 'SELECT created_at FROM events ORDER BY id DESC LIMIT 1';

// Events and locks dated after `after` (a lock by when it was granted or released: a live lock's expiry
// is legitimately in the future): what a write with a wrong clock leaves behind.
// Two-argument max() and min() are SQLite's; PostgreSQL spells them GREATEST and LEAST.
const FUTURE_LOCKS = dialect({
  sqlite: 'SELECT count(*) AS n, max(max(created_at), coalesce(max(released_at), 0)) AS newest FROM locks WHERE created_at > ? OR released_at > ?',
  postgres: 'SELECT count(*) AS n, GREATEST(max(created_at), coalesce(max(released_at), 0)) AS newest FROM locks WHERE created_at > ? OR released_at > ?',
});

export async function futureTimes(db: Connection, after: number): Promise<{ events: number; locks: number; newest: number }> {
  const events = (await db.prepare('SELECT count(*) AS n, max(created_at) AS newest FROM events WHERE created_at > ?').get(after)) as { n: number; newest: number | null };
  const locks = (await db.prepare(FUTURE_LOCKS).get(after, after)) as { n: number; newest: number | null };
  return { events: events.n, locks: locks.n, newest: Math.max(events.newest ?? 0, locks.newest ?? 0) };
}

const REPAIR_LOCKS_SET = `released_at = CASE WHEN released_at > ? THEN ? ELSE released_at END,
        expires_at = CASE WHEN created_at > ? OR expires_at > ? + ttl_ms THEN ? + ttl_ms ELSE expires_at END
       WHERE created_at > ? OR released_at > ? OR expires_at > ? + ttl_ms`;
const REPAIR_LOCKS = dialect({
  sqlite: `UPDATE locks SET created_at = min(created_at, ?), ${REPAIR_LOCKS_SET}`,
  postgres: `UPDATE locks SET created_at = LEAST(created_at, ?), ${REPAIR_LOCKS_SET}`,
});

// Dates everything stamped after `now` at `now`: events (their order by id is kept, and created_at stays
// non-decreasing with id), each lock's grant and release, and its expiry to now plus its TTL (so a live
// lock keeps the time it was granted for); heartbeats, consumer cursors and settings likewise. Call
// inside one write transaction.
export async function repairFutureTimes(db: Connection, now: number): Promise<{ events: number; locks: number }> {
  const events = (await db.prepare('UPDATE events SET created_at = ? WHERE created_at > ?').run(now, now)).changes;
  const locks = (await db.prepare(REPAIR_LOCKS).run(now, now, now, now, now, now, now, now, now)).changes;
  await db.prepare('UPDATE owners SET last_seen = ? WHERE last_seen > ?').run(now, now);
  await db.prepare('UPDATE consumers SET updated_at = ? WHERE updated_at > ?').run(now, now);
  await db.prepare('UPDATE settings SET updated_at = ? WHERE updated_at > ?').run(now, now);
  return { events, locks };
}

// A monotonic clock in ms. Not `performance.now()`: touching the `performance` global loads node:perf_hooks,
// ~2 ms of every hook's start.
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

// How long the last write transaction waited for SQLite's write lock, and how long it then held it:
// the figures the benchmark reports for concurrent hooks (IC_TIMING=1 prints them to stderr).
export interface TransactionTimings {
  lockWaitMs: number;
  heldMs: number;
}

let last: TransactionTimings = { lockWaitMs: 0, heldMs: 0 };
let holds: number[] | undefined;

export function recordTransaction(timings: TransactionTimings): void {
  last = timings;
  holds?.push(timings.heldMs);
}

// Every hold from now on, kept for the benchmark: one call may run more than one write transaction (a bulk
// operation runs one per chunk).
export function collectWriteHolds(): number[] {
  holds = [];
  return holds;
}

export function lastTransactionTimings(): TransactionTimings {
  return last;
}
