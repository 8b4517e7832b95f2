import type { Connection } from './connection';

export interface HandoffRow {
  id: number;
  owner: string;
  lock_id: string;
  pattern: string;
  reason: string | null;
  created_at: number;
}

// `handoff_requested` events for these claims after event `afterId` (a claim's current token: requests made
// before it changed hands were for the previous holder).
export async function handoffRequests(db: Connection, lockIds: readonly string[], afterId: number): Promise<HandoffRow[]> {
  if (lockIds.length === 0) return [];
  const marks = lockIds.map(() => '?').join(', ');
  return (await db
    .prepare(`SELECT id, owner, lock_id, pattern, reason, created_at FROM events WHERE id > ? AND type = 'handoff_requested' AND lock_id IN (${marks}) ORDER BY id`)
    .all(afterId, ...lockIds)) as HandoffRow[];
}
