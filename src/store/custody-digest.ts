import type Database from 'better-sqlite3';
import { unlinkSync } from 'node:fs';
import { statement } from './statements';

// The files beside a database that the shell hooks' fast path reads instead of opening it
// (src/hooks/fast/): the digest of what custody needs, and one marker per running shell command.

export function digestPath(dbPath: string): string {
  return `${dbPath}-digest.json`;
}

export function runningDir(dbPath: string): string {
  return `${dbPath}-running`;
}

// The generation the triggers of schema/0007_custody_digest.sql move; undefined before that migration.
export function digestGeneration(db: Database.Database): number | undefined {
  try {
    return (statement(db, 'SELECT generation FROM custody_digest WHERE id = 1').get() as { generation: number } | undefined)?.generation;
  } catch {
    return undefined;
  }
}

// Called inside the write transaction that moved the generation, before it commits: a failure to delete
// aborts the write, since a digest left behind would say less than the database.
export function dropDigest(dbPath: string): void {
  try {
    unlinkSync(digestPath(dbPath)); // not rmSync: it loads Node's rimraf for one file
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

export interface DigestLockRow {
  id: string;
  owner: string;
  pattern: string;
  created_at: number;
  expires_at: number;
}

export interface DigestRecordRow {
  path: string;
  owner: string;
  blob: string | null;
  mode: number;
  stat: string;
  source: 'write' | 'seen';
  recorded_at: number;
}

export interface DigestSessionRow {
  owner: string;
  base: string;
  host: string;
  boot: string;
  pid: number;
  start: string;
  last_seen: number;
  told_until: number | null;
}

// Unreleased file locks of a scope, expired ones too: a lock past its expiry may still be renewed by its
// owner without any trigger firing, so the digest counts it as held.
export function unreleasedFileLocks(db: Database.Database, scope: string): DigestLockRow[] {
  return statement(db, "SELECT id, owner, pattern, created_at, expires_at FROM locks WHERE scope = ? AND type = 'file' AND released_at IS NULL ORDER BY token").all(scope) as DigestLockRow[];
}

export function scopeRecords(db: Database.Database, scope: string): DigestRecordRow[] {
  return statement(db, 'SELECT path, owner, blob, mode, stat, source, recorded_at FROM custody_latest WHERE scope = ?').all(scope) as DigestRecordRow[];
}

export function ownersEditing(db: Database.Database, scope: string): string[] {
  return (statement(db, 'SELECT DISTINCT owner FROM custody_edits WHERE scope = ?').all(scope) as { owner: string }[]).map((row) => row.owner);
}

export function allSessions(db: Database.Database): DigestSessionRow[] {
  return statement(db, 'SELECT owner, base, host, boot, pid, start, last_seen, told_until FROM sessions').all() as DigestSessionRow[];
}

// The earliest expiry of each owner's unreleased locks of every type and scope, leaving out locks that
// expired before `since`: a lapsed lock is never renewed again, only released (src/coord/reserve.ts).
export function earliestExpiries(db: Database.Database, since: number): { owner: string; expires_at: number }[] {
  return statement(db, 'SELECT owner, min(expires_at) AS expires_at FROM locks WHERE released_at IS NULL AND expires_at > ? GROUP BY owner').all(since) as { owner: string; expires_at: number }[];
}
