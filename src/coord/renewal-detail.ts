import type { LockMode } from '../core/lock';

// What a `renewed` event records so that the log alone replays a lock's life: the new expiry and the mode
// after the renewal (stored in epoch ms like every detail time; `events` prints RFC 3339), and the mode before when a re-reserve switched shared/exclusive in place.
export function renewalDetail(expiresAt: number, mode: LockMode, previousMode?: LockMode): Record<string, unknown> {
  return { expires_at: expiresAt, mode, ...(previousMode !== undefined && previousMode !== mode ? { previous_mode: previousMode } : {}) };
}
