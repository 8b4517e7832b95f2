import { overlaps } from './glob';
import type { Lock, LockMode, LockType } from './lock';
import { isRunOwner } from './owner';

export interface LockRequest {
  type: LockType;
  scope: string;
  pattern: string;
  owner: string;
  mode: LockMode;
}

export interface Conflict {
  pattern: string;
  held: Lock;
  example: string;
  /** `held` is active, or lapsed by expiry but still inside the lock-delay window. */
  state: 'active' | 'lock_delay';
}

// Where can both locks apply? Files by exact glob overlap; named locks and claims by equal names only.
export function commonTarget(type: LockType, a: string, b: string): string | null {
  if (type !== 'file') return a === b ? a : null;
  const result = overlaps(a, b);
  return result.overlap ? (result.example ?? a) : null;
}

// Does `held` still bind others at `now`? Active locks do; so does a lock that lapsed by expiry
// (not release or transfer) within `lockDelayMs`, because its owner may still be writing. The lease of a
// `lock NAME -- CMD` run is the exception: its owner is one dead ic process, and the lease is short so
// that the lock is free within it.
export function bindingState(held: Lock, now: number, lockDelayMs: number): Conflict['state'] | null {
  if (held.released_at === null && held.expires_at > now) return 'active';
  const lapsedByExpiry = (held.released_at === null || held.release_reason === 'expired') && !isRunOwner(held.owner);
  if (lapsedByExpiry && lockDelayMs > 0 && held.expires_at + lockDelayMs > now) return 'lock_delay';
  return null;
}

// The conflict rule of CONTRACT.md: same scope and type, different owners, one exclusive, a common target.
export function conflictWith(request: LockRequest, held: Lock, now: number, lockDelayMs: number): Conflict | null {
  if (held.scope !== request.scope || held.type !== request.type || held.owner === request.owner) return null;
  if (request.mode === 'shared' && held.mode === 'shared') return null;
  const state = bindingState(held, now, lockDelayMs);
  if (state === null) return null;
  const example = commonTarget(request.type, request.pattern, held.pattern);
  return example === null ? null : { pattern: request.pattern, held, example, state };
}

// Every held lock that blocks any of the requested patterns, each once, in a stable order.
export function findConflicts(requests: readonly LockRequest[], candidates: readonly Lock[], now: number, lockDelayMs: number): Conflict[] {
  const seen = new Set<string>();
  const conflicts: Conflict[] = [];
  const ordered = [...candidates].sort((x, y) => x.token - y.token);
  for (const held of ordered) {
    for (const request of requests) {
      if (seen.has(held.id)) break;
      const conflict = conflictWith(request, held, now, lockDelayMs);
      if (conflict) {
        seen.add(held.id);
        conflicts.push(conflict);
      }
    }
  }
  return conflicts;
}
