import { overlaps } from '../../src/core/glob';

export interface ReplayEvent {
  id: number;
  type: string;
  lock_id: string | null;
  scope: string;
  owner: string;
  pattern: string | null;
  detail: Record<string, unknown> | null;
}

interface Held {
  id: string;
  owner: string;
  pattern: string;
  mode: string;
}

// An independent checker: replays the event log in commit order and reports every moment at which two
// conflicting locks (different owners, one exclusive, overlapping) were both held.
export function findDoubleGrants(events: ReplayEvent[], modes: Map<string, string>): string[] {
  const held = new Map<string, Held>();
  const violations: string[] = [];
  for (const event of events) {
    if (!event.lock_id) continue;
    if (event.type === 'reserved') {
      const lock = { id: event.lock_id, owner: event.owner, pattern: event.pattern ?? '', mode: modes.get(event.lock_id) ?? 'exclusive' };
      for (const other of held.values()) {
        if (other.owner === lock.owner) continue;
        if (other.mode === 'shared' && lock.mode === 'shared') continue;
        if (overlaps(other.pattern, lock.pattern).overlap) violations.push(`event ${event.id}: ${lock.owner} got ${lock.pattern} while ${other.owner} held ${other.pattern}`);
      }
      held.set(lock.id, lock);
    } else if (['released', 'force_released', 'expired'].includes(event.type)) {
      held.delete(event.lock_id);
    } else if (event.type === 'transferred') {
      const lock = held.get(event.lock_id);
      if (lock) lock.owner = event.owner;
    }
  }
  return violations;
}
