import type Database from 'better-sqlite3';
import { statement } from '../store/statements';
import { readTransaction, type CoordContext } from './context';

export interface Stats {
  since: number | null;
  tries: number;
  grants: number;
  renewals: number;
  conflicts: number;
  denied_tries: number;
  waits: number;
  wait_rate: number;
  conflict_rate: number;
  expiries: number;
  releases: number;
  force_releases: number;
  transfers: number;
  most_contended_patterns: { pattern: string; conflicts: number }[];
  most_blocking_owners: { owner: string; conflicts: number }[];
  most_blocked_owners: { owner: string; conflicts: number }[];
}

function count(db: Database.Database, type: string, since: number): number {
  return (statement(db, 'SELECT COUNT(*) AS n FROM events WHERE type = ? AND created_at >= ?').get(type, since) as { n: number }).n;
}

// Figures from the events table: a try is a reserve that granted, renewed or was denied; one denied try
// writes one conflict event per blocker in one transaction, hence the distinct (owner, instant) count.
export function stats(ctx: CoordContext, sinceMs?: number): Stats {
  return readTransaction(ctx, (now) => {
    const since = sinceMs === undefined ? 0 : now - sinceMs;
    const db = ctx.db;
    const grants = count(db, 'reserved', since);
    const renewals = count(db, 'renewed', since);
    const conflicts = count(db, 'conflict', since);
    const denied = (statement(db, "SELECT COUNT(*) AS n FROM (SELECT DISTINCT owner, created_at FROM events WHERE type = 'conflict' AND created_at >= ?)").get(since) as { n: number }).n;
    const waits = count(db, 'waited', since);
    const tries = grants + renewals + denied;
    const top = (sql: string) => statement(db, sql).all(since) as never[];
    return {
      since: sinceMs === undefined ? null : since,
      tries,
      grants,
      renewals,
      conflicts,
      denied_tries: denied,
      waits,
      wait_rate: tries ? waits / tries : 0,
      conflict_rate: tries ? denied / tries : 0,
      expiries: count(db, 'expired', since),
      releases: count(db, 'released', since),
      force_releases: count(db, 'force_released', since),
      transfers: count(db, 'transferred', since),
      most_contended_patterns: top("SELECT json_extract(detail, '$.held_pattern') AS pattern, COUNT(*) AS conflicts FROM events WHERE type = 'conflict' AND created_at >= ? GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 10"),
      most_blocking_owners: top("SELECT json_extract(detail, '$.held_owner') AS owner, COUNT(*) AS conflicts FROM events WHERE type = 'conflict' AND created_at >= ? GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 10"),
      most_blocked_owners: top("SELECT owner, COUNT(*) AS conflicts FROM events WHERE type = 'conflict' AND created_at >= ? GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 10"),
    };
  });
}
