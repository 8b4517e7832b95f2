import { crypto } from '../lazy-builtins';
export type Agent = 'claude' | 'codex' | 'gemini' | 'copilot' | 'opencode' | 'pi' | 'cline';

const SAFE_ID = /^[A-Za-z0-9._-]{1,100}$/;

// An id as it appears in an owner: kept when plain, else hashed, so the result is always a valid owner and
// safe in an env file.
function ownerPart(id: string): string {
  return SAFE_ID.test(id) ? id : crypto().createHash('sha256').update(id).digest('hex').slice(0, 32);
}

// The owner an agent session acts as: `claude-<session_id>` (or `codex-…`, `gemini-…`, `copilot-…`, `opencode-…`, `pi-…`, `cline-…`), and `claude-<session_id>/<agent_id>`
// for a subagent of that session. Derived from the payload, never from an inherited $IC_OWNER, so parallel
// sessions (and parallel subagents of one session) stay distinct owners.
export function ownerForSession(agent: Agent, sessionId: string, agentId?: string): string {
  const session = liveOwner(`${agent}-${ownerPart(sessionId)}`);
  return agentId === undefined ? session : `${session}/${ownerPart(agentId)}`;
}

// The session owner a subagent owner belongs to (`claude-S/A` → `claude-S`).
export function sessionOf(owner: string): string {
  const slash = owner.indexOf('/');
  return slash < 0 ? owner : owner.slice(0, slash);
}

// The live owner of this hook's session, when it differs from the owner its payload names (a second live
// process of one session id, or of one IC_OWNER, is `base~<pid>`; docs/sessions.md). Set once per hook
// invocation by runHook's liveness step, so every adapter that derives its owner here gets it.
const liveOwners = new Map<string, string>();

export function liveOwner(base: string): string {
  return liveOwners.get(base) ?? base;
}

export function setLiveOwner(base: string, owner: string): void {
  if (owner === base) liveOwners.delete(base);
  else liveOwners.set(base, owner);
}

export function clearLiveOwners(): void {
  liveOwners.clear();
}
