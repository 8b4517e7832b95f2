import { formatNullableTime, formatTime } from './time';

export type LockType = 'file' | 'named' | 'claim';
export type LockMode = 'exclusive' | 'shared';
export const LOCK_TYPES: readonly LockType[] = ['file', 'named', 'claim'];

// A lock row as stored: times are epoch milliseconds.
export interface Lock {
  id: string;
  token: number;
  type: LockType;
  scope: string;
  pattern: string;
  owner: string;
  mode: LockMode;
  reason: string | null;
  created_at: number;
  expires_at: number;
  released_at: number | null;
  release_reason: string | null;
  /** A `lock NAME -- CMD` run whose lease lapsed but whose command still runs on this host (list, who): it still holds. */
  command_pid?: number;
}

// The lock as every command prints it (docs/reference.md, "Locks").
export interface LockView extends Omit<Lock, 'created_at' | 'expires_at' | 'released_at'> {
  created_at: string;
  expires_at: string;
  released_at: string | null;
}

export const DEFAULT_TTL_MS: Record<LockType, number> = { file: 15 * 60_000, claim: 30 * 60_000, named: 5 * 60_000 };

// The lock's own fields and nothing else, so storage-only columns never leak into the output contract.
// Names every field (no rest spread): this runs for every lock a command returns.
export function plainLock(lock: Lock): Lock {
  const plain: Lock = {
    id: lock.id,
    token: lock.token,
    type: lock.type,
    scope: lock.scope,
    pattern: lock.pattern,
    owner: lock.owner,
    mode: lock.mode,
    reason: lock.reason,
    created_at: lock.created_at,
    expires_at: lock.expires_at,
    released_at: lock.released_at,
    release_reason: lock.release_reason,
  };
  if (lock.command_pid !== undefined) plain.command_pid = lock.command_pid; // an orphaned run's command (list, who)
  return plain;
}

// The lock as printed: its own fields in the same order, times as RFC 3339.
export function viewLock(lock: Lock): LockView {
  return { ...plainLock(lock), created_at: formatTime(lock.created_at), expires_at: formatTime(lock.expires_at), released_at: formatNullableTime(lock.released_at) };
}
