import { dialect, type Connection } from './connection';
import { ofProject, projectParams } from './events';

// One group of conflict events: who was refused, because of whose lock on which pattern.
export interface ConflictGroup {
  heldPattern: string | null;
  heldOwner: string | null;
  owner: string;
  conflicts: number;
}

export interface EventTally {
  /** Events since the cutoff, by type. */
  byType: Map<string, number>;
  /** Refused reserves: one try writes one conflict event per blocker, all with the same owner and time. */
  deniedTries: number;
  conflicts: ConflictGroup[];
}

// JSON functions differ: SQLite's json_array/json_extract, PostgreSQL's jsonb_build_array and ->> on the
// detail text; PostgreSQL also folds unquoted aliases to lower case, so the camel-case ones are quoted.
const COUNTS = dialect({
  sqlite: "SELECT type, COUNT(*) AS n, COUNT(DISTINCT CASE WHEN type = 'conflict' THEN json_array(owner, created_at) END) AS tries FROM events WHERE created_at >= ? GROUP BY type",
  postgres: "SELECT type, COUNT(*) AS n, COUNT(DISTINCT CASE WHEN type = 'conflict' THEN jsonb_build_array(owner, created_at) END) AS tries FROM events WHERE created_at >= ? GROUP BY type",
});

const CONFLICTS = dialect({
  sqlite:
    "SELECT json_extract(detail, '$.held_pattern') AS heldPattern, json_extract(detail, '$.held_owner') AS heldOwner, owner, COUNT(*) AS conflicts FROM events WHERE type = 'conflict' AND created_at >= ? GROUP BY 1, 2, 3",
  postgres:
    "SELECT detail::jsonb ->> 'held_pattern' AS \"heldPattern\", detail::jsonb ->> 'held_owner' AS \"heldOwner\", owner, COUNT(*) AS conflicts FROM events WHERE type = 'conflict' AND created_at >= ? GROUP BY 1, 2, 3",
});

// The events table has no index on type or time, so each statement scans it once: two scans in all.
const [PROJECT_COUNTS, PROJECT_CONFLICTS] = [ofProject(COUNTS), ofProject(CONFLICTS)];

// `project`: a server project's key (its events only: store/events.ts, ofProject).
export async function tallyEvents(db: Connection, since: number, project?: string): Promise<EventTally> {
  const only = project === undefined ? [] : projectParams(project);
  const counts = (await db.prepare(project === undefined ? COUNTS : PROJECT_COUNTS).all(since, ...only)) as { type: string; n: number; tries: number }[];
  const conflicts = (await db.prepare(project === undefined ? CONFLICTS : PROJECT_CONFLICTS).all(since, ...only)) as ConflictGroup[];
  return { byType: new Map(counts.map((row) => [row.type, row.n])), deniedTries: counts.find((row) => row.type === 'conflict')?.tries ?? 0, conflicts };
}
