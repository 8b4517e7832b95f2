import { digestPath } from '../../store/custody-digest';
import { readRegularFile } from '../../store/regular-file';

// The digest the shell hooks' fast path reads instead of the database (written by
// src/hooks/custody/digest-refresh.ts, deleted by any write that could make it say too little: see
// schema/0007_custody_digest.sql). Rows are arrays, not objects: it is parsed on every shell command.

export const DIGEST_VERSION = 2;

export interface Digest {
  v: number;
  /** The custody_digest generation it was written at. */
  generation: number;
  written_at: number;
  /** [owner, base, host, boot, pid, start, last_seen, told_until]: every session of the database. */
  sessions: [string, string, string, string, number, string, number, number | null][];
  /** [owner, earliest expiry]: of each owner's unreleased locks, any type and scope. */
  expiries: [string, number][];
  /** The scope directory this digest is of (the project's scope as resolved from a work tree). */
  scopeDir: string;
  scope: DigestScope;
}

export interface DigestScope {
  /** The scope's stored key (scopeKey, src/coord/workspace.ts). */
  key: string;
  /** [lock id, owner, pattern, created_at, expires_at] of every unreleased file lock. */
  locks: [string, string, string, number, number][];
  /** [path, owner, blob, mode, stat, source, recorded_at]: the holders' records of the paths the locks cover. */
  records: [string, string, string | null, number, string, 'write' | 'seen', number][];
  /** Owners with an edit under way (custody_edits). */
  editing: string[];
  /** [event id, holder] of each open hand-off request. */
  requests: [number, string][];
}

// Undefined when there is no digest of the scope (deleted by a write, never written, or from another version).
export function readDigest(dbPath: string, scopeDir: string): Digest | undefined {
  const text = readRegularFile(digestPath(dbPath, scopeDir));
  if (text === undefined) return undefined;
  try {
    const digest = JSON.parse(text) as Digest;
    return digest !== null && typeof digest === 'object' && digest.v === DIGEST_VERSION && digest.scopeDir === scopeDir && typeof digest.scope === 'object' ? digest : undefined;
  } catch {
    return undefined;
  }
}
