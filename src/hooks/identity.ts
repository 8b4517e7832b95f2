
export type Agent = 'claude' | 'codex';

const SAFE_ID = /^[A-Za-z0-9._-]{1,100}$/;

// The owner an agent session acts as: `claude-<session_id>` (or `codex-…`). Derived from the payload, never
// from an inherited $IC_OWNER, so parallel sessions stay distinct owners. Odd ids are hashed: the result is
// always a valid owner and safe in an env file.
export function ownerForSession(agent: Agent, sessionId: string): string {
  const id = SAFE_ID.test(sessionId) ? sessionId : (require('node:crypto') as typeof import('node:crypto')).createHash('sha256').update(sessionId).digest('hex').slice(0, 32);
  return `${agent}-${id}`;
}
