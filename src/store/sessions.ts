import { dialect, runWithoutResult, type Connection } from './connection';

// Live agent sessions (schema/0003_sessions.sql): which client process runs as which owner.

export interface ClientProcess {
  host: string;
  boot: string;
  pid: number;
  start: string;
}

export interface SessionRow extends ClientProcess {
  owner: string;
  base: string;
  agent: string;
  created_at: number;
  last_seen: number;
  told_until: number;
}

const COLUMNS = 'owner, base, agent, host, boot, pid, start, created_at, last_seen, told_until';

// An owner and its subagents (`owner/…`): the lineage a session's renewals and releases cover. Bound by lineageOf.
const LINEAGE = '(owner = ? OR substr(owner, 1, ?) = ?)';

function lineageOf(owner: string): [string, number, string] {
  return [owner, owner.length + 1, `${owner}/`];
}

export async function sessionByOwner(db: Connection, owner: string): Promise<SessionRow | undefined> {
  return (await db.prepare(`SELECT ${COLUMNS} FROM sessions WHERE owner = ?`).get(owner)) as SessionRow | undefined;
}

// The session a client process runs under `base` (one process may run several: Claude's /clear starts a new id).
export async function sessionOfProcess(db: Connection, client: ClientProcess, base?: string): Promise<SessionRow | undefined> {
  const rows = (await db.prepare(`SELECT ${COLUMNS} FROM sessions WHERE host = ? AND pid = ? AND start = ? ORDER BY last_seen DESC`).all(client.host, client.pid, client.start)) as SessionRow[];
  return rows.find((row) => row.boot === client.boot && (base === undefined || row.base === base));
}

export async function sessionsOnHost(db: Connection, host: string): Promise<SessionRow[]> {
  return (await db.prepare(`SELECT ${COLUMNS} FROM sessions WHERE host = ?`).all(host)) as SessionRow[];
}

// Registers (or re-registers, for a process that took the owner over) a session.
export async function putSession(db: Connection, row: Omit<SessionRow, 'told_until'>): Promise<void> {
  await runWithoutResult(
    db.prepare(
      `INSERT INTO sessions (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0)
     ON CONFLICT (owner) DO UPDATE SET base = excluded.base, agent = excluded.agent, host = excluded.host, boot = excluded.boot, pid = excluded.pid,
       start = excluded.start, created_at = excluded.created_at, last_seen = excluded.last_seen, told_until = 0`,
    ),
    ...[row.owner, row.base, row.agent, row.host, row.boot, row.pid, row.start, row.created_at, row.last_seen],
  );
}

// Two-argument max() is SQLite's; PostgreSQL spells it GREATEST.
const TOUCH = dialect({
  sqlite: 'UPDATE sessions SET last_seen = max(last_seen, ?) WHERE owner = ?',
  postgres: 'UPDATE sessions SET last_seen = GREATEST(last_seen, ?) WHERE owner = ?',
});

export async function touchSession(db: Connection, owner: string, now: number): Promise<void> {
  await runWithoutResult(db.prepare(TOUCH), now, owner);
}

const MARK_TOLD = dialect({
  sqlite: 'UPDATE sessions SET told_until = max(told_until, ?) WHERE owner = ?',
  postgres: 'UPDATE sessions SET told_until = GREATEST(told_until, ?) WHERE owner = ?',
});

export async function markTold(db: Connection, owner: string, eventId: number): Promise<void> {
  await db.prepare(MARK_TOLD).run(eventId, owner);
}

export async function deleteSession(db: Connection, owner: string): Promise<void> {
  await db.prepare('DELETE FROM sessions WHERE owner = ?').run(owner);
}

// Every active lock of an owner and of its subagents (`owner/…`), all scopes: what a dead client leaves.
export async function lineageLockIds(db: Connection, owner: string, now: number): Promise<LockRef[]> {
  return (await db.prepare(`SELECT id, owner, scope FROM locks WHERE released_at IS NULL AND expires_at > ? AND ${LINEAGE} ORDER BY token`).all(now, ...lineageOf(owner))) as LockRef[];
}

type LockRef = { id: string; owner: string; scope: string };

// The scopes of the active locks of the sessions named `base` (`base`, `base~<pid>`) and their subagents: what
// a renewal of the session's lineage must hold (a lock's expiry is decided on under its scope's lock).
export async function lineageFamilyScopes(db: Connection, base: string, now: number): Promise<string[]> {
  return ((await db.prepare(FAMILY_SCOPES).all(...familyParams(base, now))) as { scope: string }[]).map((row) => row.scope);
}

// Inside a read: announces lineageFamilyScopes, so that a server fetches it with the read's next statement.
export const prefetchLineageFamilyScopes = (db: Connection, base: string, now: number): void => db.prefetch?.(FAMILY_SCOPES, familyParams(base, now));
const FAMILY_SCOPES = 'SELECT DISTINCT scope FROM locks WHERE released_at IS NULL AND expires_at > ? AND (owner = ? OR substr(owner, 1, ?) IN (?, ?))';
const familyParams = (base: string, now: number) => [now, base, base.length + 1, `${base}/`, `${base}~`];

// `AND scope IN (…)`: a renewal touches only locks of the scopes its write holds.
function inScopeList(scopes: readonly string[]): string {
  return scopes.length === 0 ? ' AND false' : ` AND scope IN (${scopes.map(() => '?').join(', ')})`;
}

// Pushes the expiry of an owner's (and its subagents') active locks in `scopes` out to at least `until`; never shortens one.
export async function extendLineageUntil(db: Connection, owner: string, now: number, until: number, scopes: readonly string[]): Promise<number> {
  const sql = `UPDATE locks SET expires_at = ? WHERE released_at IS NULL AND expires_at > ? AND expires_at < ? AND ${LINEAGE}${inScopeList(scopes)}`;
  return (await db.prepare(sql).run(until, now, until, ...lineageOf(owner), ...scopes)).changes;
}

// Would any live lock of the owner or its subagents lapse before `until`? Only then does a shell command's
// cover need a write.
export async function lineageLockEndsBefore(db: Connection, owner: string, now: number, until: number): Promise<boolean> {
  return (await db.prepare(`SELECT 1 FROM locks WHERE released_at IS NULL AND expires_at > ? AND expires_at < ? AND ${LINEAGE} LIMIT 1`).get(now, until, ...lineageOf(owner))) !== undefined;
}

// The same renewal as a heartbeat (each lock to now + its own TTL), for the owner and its subagents, in `scopes`.
export async function extendLineageLocks(db: Connection, owner: string, now: number, scopes: readonly string[]): Promise<number> {
  const sql = `UPDATE locks SET expires_at = ? + ttl_ms WHERE released_at IS NULL AND expires_at > ? AND expires_at < ? + ttl_ms AND ${LINEAGE}${inScopeList(scopes)}`;
  return (await db.prepare(sql).run(now, now, now, ...lineageOf(owner), ...scopes)).changes;
}
