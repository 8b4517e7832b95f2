import { dialect, runWithoutResult, type Connection } from './connection';

// Custody records (schema/0004_custody.sql): the holder's latest content per file, and what each shell
// command's files were before it ran. Contents are git blob ids.

export interface FileState {
  /** The blob id, or null when the file does not exist. */
  blob: string | null;
  mode: number;
  /** "size:mtime:ctime:inode" when the blob was taken ('' for a missing file). */
  stat: string;
}

// The same content: the same blob, and (for a file that exists) the same mode; times do not count.
export function sameContent(a: FileState, b: FileState): boolean {
  return a.blob === b.blob && (a.blob === null || a.mode === b.mode);
}

export interface LatestRow extends FileState {
  path: string;
  owner: string;
  source: 'write' | 'seen';
  recorded_at: number;
}

export interface SnapshotRow extends FileState {
  path: string;
  holder: string;
}

// The paths arrive as one JSON array: SQLite unpacks it with json_each, PostgreSQL with jsonb_array_elements_text.
const LATEST_FOR = dialect({
  sqlite: 'SELECT path, owner, blob, mode, stat, source, recorded_at FROM custody_latest WHERE scope = ? AND path IN (SELECT value FROM json_each(?))',
  postgres: 'SELECT path, owner, blob, mode, stat, source, recorded_at FROM custody_latest WHERE scope = ? AND path IN (SELECT jsonb_array_elements_text(?::jsonb))',
});

export async function latestFor(db: Connection, scope: string, paths: readonly string[]): Promise<Map<string, LatestRow>> {
  const found = new Map<string, LatestRow>();
  if (paths.length === 0) return found;
  // One query for all the paths (a held directory may cover thousands), by the (scope, path) key.
  const rows = (await db.prepare(LATEST_FOR).all(scope, JSON.stringify(paths))) as LatestRow[];
  for (const row of rows) found.set(row.path, row);
  return found;
}

// Every recorded path of the scope: one read, for a caller that asks about many directories at once.
export async function latestPaths(db: Connection, scope: string): Promise<string[]> {
  return ((await db.prepare('SELECT path FROM custody_latest WHERE scope = ?').all(scope)) as { path: string }[]).map((row) => row.path);
}

export async function recordLatest(db: Connection, scope: string, row: LatestRow): Promise<void> {
  await db
    .prepare(
      'INSERT INTO custody_latest (scope, path, owner, blob, mode, stat, source, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (scope, path) DO UPDATE SET owner = excluded.owner, blob = excluded.blob, mode = excluded.mode, stat = excluded.stat, source = excluded.source, recorded_at = excluded.recorded_at',
    )
    .run(scope, row.path, row.owner, row.blob, row.mode, row.stat, row.source, row.recorded_at);
}

// Every blob a live record names: holders' latest contents and running commands' snapshots since `since`
// (coord sweep keeps their pins, src/coord/sweep.ts).
export async function recordedBlobs(db: Connection, since: number): Promise<Set<string>> {
  const rows = (await db
    .prepare(
      'SELECT blob FROM custody_latest WHERE blob IS NOT NULL AND recorded_at >= ? UNION SELECT s.blob FROM custody_snapshots s JOIN custody_commands c ON c.scope = s.scope AND c.writer = s.writer AND c.call_id = s.call_id WHERE s.blob IS NOT NULL AND c.started_at >= ?',
    )
    .all(since, since)) as { blob: string }[];
  return new Set(rows.map((row) => row.blob));
}

// Records older than the longest lock (24 h) describe no live holder any more.
export async function purgeLatest(db: Connection, before: number): Promise<number> {
  return (await db.prepare('DELETE FROM custody_latest WHERE recorded_at < ?').run(before)).changes;
}

export async function startCommand(db: Connection, scope: string, writer: string, callId: string, now: number, rows: readonly SnapshotRow[]): Promise<void> {
  await db.prepare('DELETE FROM custody_snapshots WHERE scope = ? AND writer = ? AND call_id = ?').run(scope, writer, callId);
  await db
    .prepare('INSERT INTO custody_commands (scope, writer, call_id, started_at) VALUES (?, ?, ?, ?) ON CONFLICT (scope, writer, call_id) DO UPDATE SET started_at = excluded.started_at')
    .run(scope, writer, callId, now);
  const insert = db.prepare('INSERT INTO custody_snapshots (scope, writer, call_id, path, holder, blob, mode, stat) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
  for (const row of rows) await insert.run(scope, writer, callId, row.path, row.holder, row.blob, row.mode, row.stat);
}

export async function commandStart(db: Connection, scope: string, writer: string, callId: string): Promise<number | undefined> {
  const row = (await db.prepare('SELECT started_at FROM custody_commands WHERE scope = ? AND writer = ? AND call_id = ?').get(scope, writer, callId)) as { started_at: number } | undefined;
  return row?.started_at;
}

export async function snapshotRows(db: Connection, scope: string, writer: string, callId: string): Promise<Map<string, SnapshotRow>> {
  const rows = (await db.prepare('SELECT path, holder, blob, mode, stat FROM custody_snapshots WHERE scope = ? AND writer = ? AND call_id = ?').all(scope, writer, callId)) as SnapshotRow[];
  return new Map(rows.map((row) => [row.path, row]));
}

export async function endCommand(db: Connection, scope: string, writer: string, callId: string): Promise<void> {
  await db.prepare('DELETE FROM custody_snapshots WHERE scope = ? AND writer = ? AND call_id = ?').run(scope, writer, callId);
  await db.prepare('DELETE FROM custody_commands WHERE scope = ? AND writer = ? AND call_id = ?').run(scope, writer, callId);
}

// Commands whose after hook never came (killed, timed out): dropped once older than the cutoff.
export async function purgeCommands(db: Connection, startedBefore: number): Promise<void> {
  const stale = (await db.prepare('SELECT scope, writer, call_id FROM custody_commands WHERE started_at < ?').all(startedBefore)) as { scope: string; writer: string; call_id: string }[];
  for (const c of stale) await endCommand(db, c.scope, c.writer, c.call_id);
}

// Other writers' commands running now (started, not yet ended): their writes to files they hold are theirs.
export async function runningWriters(db: Connection, scope: string, since: number): Promise<Set<string>> {
  const rows = (await db.prepare('SELECT DISTINCT writer FROM custody_commands WHERE scope = ? AND started_at >= ?').all(scope, since)) as { writer: string }[];
  return new Set(rows.map((r) => r.writer));
}

export interface EditRow {
  path: string;
  owner: string;
  started_at: number;
}

// The holder's edit hook is about to let its tool write these files (custody_edits).
export async function markEdits(db: Connection, scope: string, owner: string, paths: readonly string[], now: number): Promise<void> {
  const upsert = db.prepare(
    'INSERT INTO custody_edits (scope, path, owner, started_at) VALUES (?, ?, ?, ?) ON CONFLICT (scope, path) DO UPDATE SET owner = excluded.owner, started_at = excluded.started_at',
  );
  for (const path of paths) await runWithoutResult(upsert, scope, path, owner, now);
}

export async function editsFor(db: Connection, scope: string, paths: readonly string[]): Promise<Map<string, EditRow>> {
  const found = new Map<string, EditRow>();
  const select = db.prepare('SELECT path, owner, started_at FROM custody_edits WHERE scope = ? AND path = ?');
  for (const path of paths) {
    const row = (await select.get(scope, path)) as EditRow | undefined;
    if (row) found.set(path, row);
  }
  return found;
}

// The holder's write was recorded (or its command ended): the file's edit is no longer under way.
export async function clearEdits(db: Connection, scope: string, paths: readonly string[]): Promise<void> {
  const remove = db.prepare('DELETE FROM custody_edits WHERE scope = ? AND path = ?');
  for (const path of paths) await remove.run(scope, path);
}

// Edit marks older than the cutoff: their tool never reported back (refused, failed, killed).
export async function purgeEdits(db: Connection, startedBefore: number): Promise<number> {
  return (await db.prepare('DELETE FROM custody_edits WHERE started_at < ?').run(startedBefore)).changes;
}

// The owner's own shell command ended: the marks its before hook made are over (its writes were recorded).
export async function clearEditsBy(db: Connection, scope: string, owner: string): Promise<void> {
  await db.prepare('DELETE FROM custody_edits WHERE scope = ? AND owner = ?').run(scope, owner);
}

// The open commands of these writers, in every scope (a turn that ended ends them: see
// src/hooks/custody/open-commands.ts). Returns how many ended.
export async function endCommandsOf(db: Connection, writers: readonly string[]): Promise<number> {
  let ended = 0;
  for (const writer of writers) {
    const open = await openCommandsOf(db, writer);
    for (const c of open) await endCommand(db, c.scope, writer, c.call_id);
    ended += open.length;
  }
  return ended;
}

export async function openCommandsOf(db: Connection, writer: string): Promise<{ scope: string; call_id: string }[]> {
  return (await db.prepare('SELECT scope, call_id FROM custody_commands WHERE writer = ?').all(writer)) as { scope: string; call_id: string }[];
}
