import type Database from 'better-sqlite3';
import { openSqlite } from './driver';
import { accessSync, constants, existsSync, readlinkSync, statfsSync, statSync } from 'node:fs';
import { lstatOrNull } from './git/files';
import { dirname } from 'node:path';
import type { DbLocation } from './discover';
import { detectFileSystem, networkFsAllowed, type FileSystemInfo } from './filesystem';
import { LATEST_VERSION } from './migrations';
import { CLOCK_TOLERANCE_MS, futureTimes } from './clock';
import { classifyDbFile, oddSidecar } from './db-file';
import { isDiskFull } from './errors';
import { SqliteConnection } from './sqlite-connection';
import { shellQuote } from '../core/shell';

// One finding of `ic doctor`. An `error` means ic cannot use the database; a `warning` means it works
// but something needs attention; a `notice` is a step left to the person that a client itself asks for
// (a folder trust prompt at its first start): shown, but the report stays healthy. `fix` says what to do
// and is present exactly when ok is false.
export interface HealthCheck {
  name: string;
  ok: boolean;
  detail: string;
  fix?: string;
  severity?: 'error' | 'warning' | 'notice';
}

export interface LockCounts {
  active: number;
  lapsed: number;
  released: number;
  expired: number;
  force_released: number;
  total: number;
}

export interface HealthReport {
  status: 'healthy' | 'problems' | 'unusable';
  db: { path: string; source: DbLocation['source']; exists: boolean; size_bytes: number | null };
  schema_version: number | null;
  latest_schema_version: number;
  journal_mode: string | null;
  integrity: string | null;
  filesystem: { type: string; mount_point: string | null; network: boolean };
  counts: { locks: LockCounts; events: number } | null;
  checks: HealthCheck[];
}

// A report before its checks (the SQLite and the PostgreSQL doctor's): healthy, nothing read yet.
export function newReport(db: HealthReport['db'], latestSchemaVersion: number, filesystem: HealthReport['filesystem']): HealthReport {
  return { status: 'healthy', db, schema_version: null, latest_schema_version: latestSchemaVersion, journal_mode: null, integrity: null, filesystem, counts: null, checks: [] };
}

// SQLite's doctor: the file, its header, integrity and journal mode are SQLite's own (another engine has its own checks).
// Examines the database without creating, migrating or converting it: what ic would hit, and what to do.
export async function diagnose(location: DbLocation, env: NodeJS.ProcessEnv, now: number, legacyDb: string | null): Promise<HealthReport> {
  const path = location.path;
  const exists = existsSync(path);
  const fs = detectFileSystem(dirname(path), env);
  const db = { path, source: location.source, exists, size_bytes: exists ? safeSize(path) : null };
  const report = newReport(db, LATEST_VERSION, { type: fs.type, mount_point: fs.mountPoint, network: fs.network });
  const checks = report.checks;
  checks.push(
    exists
      ? { name: 'location', ok: true, detail: `${path} (chosen by ${location.source})` }
      : { name: 'location', ok: true, detail: `no database at ${path} yet (chosen by ${location.source}); the first write creates it, or run \`ic init\`` },
  );
  checks.push(fileSystemCheck(fs, env));
  let dir = dirname(path); // or, before the first write creates it, its nearest existing ancestor
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  checks.push(writableCheck(path, exists, dir));
  checks.push(diskSpaceCheck(dir));
  const companions = companionFilesCheck(path);
  if (companions) checks.push(companions);
  const dangling = danglingLinkCheck(path, exists);
  if (dangling) checks.push(dangling);
  if (exists && !companions) await inspect(path, now, report);
  if (legacyDb !== null && legacyDb !== path) checks.push(legacyCheck(legacyDb, now));
  const failed = checks.filter((check) => !check.ok && check.severity !== 'notice');
  report.status = failed.some((check) => check.severity === 'error') ? 'unusable' : failed.length ? 'problems' : 'healthy';
  return report;
}

function safeSize(path: string): number | null {
  try {
    return statSync(path).size;
  } catch {
    return null;
  }
}

function fileSystemCheck(fs: FileSystemInfo, env: NodeJS.ProcessEnv): HealthCheck {
  const where = fs.mountPoint ? `${fs.type} (mounted at ${fs.mountPoint})` : fs.type;
  if (!fs.network) return { name: 'filesystem', ok: true, detail: `${where}${fs.type === 'unknown' ? ': mount table not available, assumed local' : ', local'}` };
  if (networkFsAllowed(env))
    return { name: 'filesystem', ok: true, detail: `${where} is a network file system; allowed by IC_ALLOW_NETWORK_FS=1 (safe only if every process using it runs on this host)` };
  return failed(
    'filesystem',
    `${where} is a network file system: SQLite's WAL mode needs shared memory and reliable locks that it does not provide, so ic refuses to write there`,
    'put the database on a local disk (IC_DB=/path/on/local/disk/ic.db or --db), or set IC_ALLOW_NETWORK_FS=1 if every process using it runs on this one host',
  );
}

// A check that failed, with what to do (an error unless said otherwise).
export function failed(name: string, detail: string, fix: string, severity: 'error' | 'warning' = 'error'): HealthCheck {
  return { name, ok: false, severity, detail, fix };
}

// Writers need the directory (for -wal and -shm) and the file writable; `dir` is the nearest existing ancestor
// when the directory does not exist yet (the first write creates it).
function writableCheck(path: string, exists: boolean, dir: string): HealthCheck {
  const targets = exists ? [dir, path, `${path}-wal`, `${path}-shm`].filter((p) => p === dir || existsSync(p)) : [dir];
  for (const target of targets) {
    try {
      accessSync(target, constants.W_OK);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'error';
      const why =
        code === 'EROFS' ? 'is on a read-only file system' : code === 'EPERM' ? 'refuses writes (immutable?)' : code === 'EACCES' ? 'is not writable by this user' : `is not writable (${code})`;
      const fix = code === 'EACCES' ? `make ${target} writable (chmod/chown), or set IC_DB to a writable path` : 'set IC_DB (or --db) to a path on a writable local disk';
      return failed('writable', `${target} ${why}: every write command will fail`, fix);
    }
  }
  return { name: 'writable', ok: true, detail: `${targets.join(', ')} writable` };
}

// Opens the existing file (read-write, so that SQLite can recover a hot journal or WAL left by a killed
// process, exactly as the next ic command would) and runs the read-only checks.
async function inspect(path: string, now: number, report: HealthReport): Promise<void> {
  const checks = report.checks;
  const moveAside = `move it aside (mv ${path} ${path}.bad) and run \`ic init\` for a fresh one; agents re-reserve on their next edit`;
  let kind: ReturnType<typeof classifyDbFile>;
  try {
    kind = classifyDbFile(path); // never blocks: a FIFO in place of the database would hang a plain read
    if (kind.kind === 'not_regular') {
      checks.push(failed('format', `${path} is ${kind.what}, not a database file`, `remove or rename ${path} (nothing of ic's is in it), or point --db/IC_DB at a file`));
      return;
    }
  } catch (error) {
    checks.push(failed('readable', `cannot read ${path}: ${(error as Error).message}`, `make ${path} readable by this user`));
    return;
  }
  if (kind.kind === 'not_sqlite') {
    checks.push(failed('format', `${path} is not a SQLite database (it starts with ${JSON.stringify(kind.start)})`, moveAside));
    return;
  }
  if (kind.kind === 'foreign') {
    const fix = `point --db/IC_DB at another file and leave this one alone; if it is a database of ic 0.1, import its live locks: ic init --import ${shellQuote(path)}`;
    checks.push(failed('format', `${path} is a SQLite database that ic did not create (application_id ${kind.applicationId})`, fix));
    return;
  }
  let db: Database.Database;
  try {
    // An ic file is opened as before (so a hot journal rolls back); a file with no schema in its header, which
    // may be a foreign database living in its -wal, only read-only, which never checkpoints or deletes that WAL.
    db = openSqlite(path, { fileMustExist: true, timeout: 2_000, readonly: kind.kind !== 'ic' });
  } catch (error) {
    checks.push(failed('open', `SQLite cannot open ${path}: ${(error as Error).message}`, `check the permissions of ${path} and ${dirname(path)}`));
    return;
  }
  try {
    await runChecks(db, path, now, report, moveAside);
  } catch (error) {
    const code = (error as { code?: string }).code ?? '';
    const corrupt = code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB';
    const busy = code.startsWith('SQLITE_BUSY') ? 'another process holds the database; run `ic doctor` again' : undefined;
    const fix = corrupt ? recoverAdvice(path) : (busy ?? (isDiskFull(code) ? DISK_FULL_ADVICE : `check ${path} and its directory, or ${moveAside}`));
    checks.push(failed(corrupt ? 'integrity' : 'open', `reading ${path} failed: ${(error as Error).message} (${code || 'error'})`, fix));
  } finally {
    db.close();
  }
}

function recoverAdvice(path: string): string {
  return `stop the agents, keep a copy (cp ${path} ${path}.bak), then recover what SQLite can (sqlite3 ${path} .recover | sqlite3 ${path}.new && mv ${path}.new ${path}), or move it aside and run \`ic init\``;
}

async function runChecks(db: Database.Database, path: string, now: number, report: HealthReport, moveAside: string): Promise<void> {
  const checks = report.checks;
  const version = db.pragma('user_version', { simple: true }) as number;
  report.schema_version = version;
  const integrity = (db.pragma('integrity_check(20)') as { integrity_check: string }[]).map((row) => row.integrity_check);
  report.integrity = integrity.join('; ');
  if (integrity.length !== 1 || integrity[0] !== 'ok') {
    checks.push(failed('integrity', `integrity_check found problems: ${report.integrity.slice(0, 500)}`, recoverAdvice(path)));
    return;
  }
  checks.push({ name: 'integrity', ok: true, detail: 'integrity_check: ok' });
  if (version > LATEST_VERSION) {
    checks.push(failed('schema', `schema version ${version} is newer than this ic supports (${LATEST_VERSION})`, 'upgrade ic to the version the other agents use'));
  } else {
    const next = version < LATEST_VERSION ? `; the next write migrates it to ${LATEST_VERSION}` : ' (latest)';
    checks.push({ name: 'schema', ok: true, detail: `schema version ${version}${next}` });
  }
  const mode = String(db.pragma('journal_mode', { simple: true }));
  report.journal_mode = mode;
  checks.push(
    mode === 'wal'
      ? { name: 'journal_mode', ok: true, detail: 'wal' }
      : failed('journal_mode', `${mode}: readers and the writer block each other`, 'run `ic init` (any write switches the database to WAL)', 'warning'),
  );
  const tables = new Set((db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((row) => row.name));
  if (version >= 1 && (!tables.has('locks') || !tables.has('events'))) {
    checks.push(failed('tables', `schema version ${version} but the locks or events table is missing`, moveAside));
    return;
  }
  if (!tables.has('locks')) return;
  const locks = db
    .prepare(
      `SELECT COALESCE(SUM(released_at IS NULL AND expires_at > @now), 0) AS active, COALESCE(SUM(released_at IS NULL AND expires_at <= @now), 0) AS lapsed,
        COALESCE(SUM(release_reason = 'released'), 0) AS released, COALESCE(SUM(release_reason = 'expired'), 0) AS expired,
        COALESCE(SUM(release_reason = 'force_released'), 0) AS force_released, COUNT(*) AS total FROM locks`,
    )
    .get({ now }) as LockCounts;
  const events = (db.prepare('SELECT COUNT(*) AS n FROM events').get() as { n: number }).n;
  report.counts = { locks, events };
  const lapsed = locks.lapsed ? `, ${locks.lapsed} lapsed (inactive; \`ic coord sweep\` marks them expired)` : '';
  checks.push(await clockCheck(db, now));
  checks.push({ name: 'locks', ok: true, detail: `${locks.active} active${lapsed}, ${locks.released} released, ${locks.expired} expired, ${locks.force_released} force-released; ${events} events` });
}

// A write with a wrong clock (IC_NOW far ahead, or a system clock set wrong) dates its events in the future;
// every later write would then be refused (coord/context.ts, writeClock). Said here, with the repair.
async function clockCheck(db: Database.Database, now: number): Promise<HealthCheck> {
  const future = await futureTimes(new SqliteConnection(db, db.name), now + CLOCK_TOLERANCE_MS);
  if (future.events === 0 && future.locks === 0) return { name: 'clock', ok: true, detail: 'no event or lock is dated in the future' };
  return failed(
    'clock',
    `${future.events} events and ${future.locks} locks are dated in the future (newest ${new Date(future.newest).toISOString()}, now ${new Date(now).toISOString()}): a write with a wrong clock stamped them, and writes are refused until they are repaired`,
    'ic doctor --repair-clock (dates them now, keeping their order and each lock its TTL)',
    'warning',
  );
}

// SQLite needs room for the WAL and its shared-memory index; a full disk shows up as odd I/O errors.
const LOW_SPACE_BYTES = 1024 * 1024;
const DISK_FULL_ADVICE = 'free some disk space; the database and every lock in it are kept (do not move it aside)';

function diskSpaceCheck(dir: string): HealthCheck {
  let free: number;
  try {
    const stats = statfsSync(dir);
    free = stats.bavail * stats.bsize;
  } catch {
    return { name: 'disk_space', ok: true, detail: 'free space unknown (statfs not available)' };
  }
  if (free >= LOW_SPACE_BYTES) return { name: 'disk_space', ok: true, detail: `${Math.floor(free / 1024 / 1024)} MiB free` };
  return failed('disk_space', `the disk holding ${dir} is full (${free} bytes free): writes fail`, DISK_FULL_ADVICE);
}

// SQLite keeps -wal and -shm beside the database; anything but a plain file there makes every call fail
// (open.ts refuses it by the same test).
function companionFilesCheck(path: string): HealthCheck | null {
  const odd = oddSidecar(path);
  if (odd === undefined) return null;
  const fix = `remove ${odd.path} (it is not ic's data: a real one is a plain file), then run \`ic doctor\` again`;
  return failed('companion_files', `${odd.path} is not a plain file (SQLite keeps its ${odd.path.slice(path.length + 1)} there)`, fix);
}

// A symlink whose target is gone looks like "no database yet", but the first write would create the
// target somewhere else than intended (or fail).
function danglingLinkCheck(path: string, exists: boolean): HealthCheck | null {
  if (exists || !lstatOrNull(path)?.isSymbolicLink()) return null;
  return failed('location', `${path} is a symlink to ${readlinkSync(path)}, which does not exist`, `restore the target, or remove the link (rm ${shellQuote(path)}) so ic creates a plain file`);
}

// ic 0.1 kept the database in the work tree, where git clean or stash could delete it. Its live locks
// still bind the agents that granted them; say how many there are and how to bring them over.
function legacyCheck(legacyDb: string, now: number): HealthCheck {
  const fix = `ic init --import ${shellQuote(legacyDb)} (brings its live locks into the current database and leaves the file as it is; remove it afterwards)`;
  let live = 'an unknown number of';
  try {
    const db = openSqlite(legacyDb, { fileMustExist: true, readonly: true, timeout: 2_000 });
    try {
      live = String((db.prepare('SELECT count(*) AS n FROM locks WHERE released_at IS NULL AND expires_at > ?').get(now) as { n: number }).n);
    } finally {
      db.close();
    }
  } catch {
    // unreadable or not ic's: still reported, with an unknown count
  }
  return failed('old_location', `${legacyDb} is an ic 0.1 database in the work tree, no longer used; it holds ${live} live locks`, fix, 'warning');
}
