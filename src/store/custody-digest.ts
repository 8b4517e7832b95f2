import type { Connection } from './connection';
import type { LatestRow } from './custody';
import type { Lock } from '../core/lock';
import type { SessionRow } from './sessions';
import { readdirSync, unlinkSync } from 'node:fs';

// The files beside a database that the shell hooks' fast path reads instead of opening it
// (src/hooks/fast/): the digest of what custody needs, and one marker per running shell command.

// One digest per scope (a database shared by several work trees has one scope each), named by a hash of the
// scope directory, so no shell hook reads or rewrites another scope's.
export function digestDir(dbPath: string): string {
  return `${dbPath}-digest`;
}

export function digestPath(dbPath: string, scopeDir: string): string {
  return `${digestDir(dbPath)}/${fnv64(scopeDir)}.json`;
}

// 64 bits of FNV-1a (two 32-bit halves with different seeds): a file name without node:crypto.
export function fnv64(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193) >>> 0;
    b = Math.imul(b ^ c, 0x01000193) >>> 0;
  }
  return `${a.toString(16).padStart(8, '0')}${b.toString(16).padStart(8, '0')}`;
}

export function runningDir(dbPath: string): string {
  return `${dbPath}-running`;
}

// The generation the triggers of schema/0007_custody_digest.sql move; undefined before that migration.
export async function digestGeneration(db: Connection): Promise<number | undefined> {
  try {
    return ((await db.prepare('SELECT generation FROM custody_digest WHERE id = 1').get()) as { generation: number } | undefined)?.generation;
  } catch {
    return undefined;
  }
}

// Called inside the write transaction that moved the generation, before it commits: every scope's digest
// goes (a failure to delete one aborts the write, since a digest left behind would say less than the
// database).
export function dropDigest(dbPath: string): void {
  let names: string[];
  try {
    names = readdirSync(digestDir(dbPath));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  for (const name of names) unlinkQuietly(`${digestDir(dbPath)}/${name}`);
}

// unlink, a missing file being no error: rmSync would load Node's rimraf for one file.
export function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

type DigestLockRow = Pick<Lock, 'id' | 'owner' | 'pattern' | 'created_at' | 'expires_at'>;
type DigestSessionRow = Omit<SessionRow, 'agent' | 'created_at' | 'told_until'> & { told_until: number | null };

// Unreleased file locks of a scope, expired ones too: a lock past its expiry may still be renewed by its
// owner without any trigger firing, so the digest counts it as held.
export async function unreleasedFileLocks(db: Connection, scope: string): Promise<DigestLockRow[]> {
  return (await db.prepare("SELECT id, owner, pattern, created_at, expires_at FROM locks WHERE scope = ? AND type = 'file' AND released_at IS NULL ORDER BY token").all(scope)) as DigestLockRow[];
}

export async function scopeRecords(db: Connection, scope: string): Promise<LatestRow[]> {
  return (await db.prepare('SELECT path, owner, blob, mode, stat, source, recorded_at FROM custody_latest WHERE scope = ?').all(scope)) as LatestRow[];
}

export async function ownersEditing(db: Connection, scope: string): Promise<string[]> {
  return ((await db.prepare('SELECT DISTINCT owner FROM custody_edits WHERE scope = ?').all(scope)) as { owner: string }[]).map((row) => row.owner);
}

export async function allSessions(db: Connection): Promise<DigestSessionRow[]> {
  return (await db.prepare('SELECT owner, base, host, boot, pid, start, last_seen, told_until FROM sessions').all()) as DigestSessionRow[];
}

// The earliest expiry of each owner's unreleased locks of every type and scope, leaving out locks that
// expired before `since`: a lapsed lock is never renewed again, only released (src/coord/reserve.ts).
export async function earliestExpiries(db: Connection, since: number): Promise<{ owner: string; expires_at: number }[]> {
  return (await db.prepare('SELECT owner, min(expires_at) AS expires_at FROM locks WHERE released_at IS NULL AND expires_at > ? GROUP BY owner').all(since)) as { owner: string; expires_at: number }[];
}
