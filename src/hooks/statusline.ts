import { existsSync } from 'node:fs';
import { createContext, readTransaction, resolveProject } from '../coord/context';
import { locateDb } from '../store/discover';
import { firstEventIdSince } from '../store/events';
import { listLocks } from '../store/locks';
import { statement } from '../store/statements';
import { ownerForSession } from './identity';
import { objectField, parsePayload, stringField } from './payload';

export interface StatusCounts {
  agents: number;
  files: number;
  waiting: number;
  mine: number;
}

const WAITING_WINDOW_MS = 5 * 60_000;

// Who is active, what is held, and who is blocked in this scope. "Waiting" = owners refused in the last
// five minutes by a lock that is still held, and granted nothing since.
export function statusCounts(cwd: string, env: NodeJS.ProcessEnv, me?: string): StatusCounts | undefined {
  const project = resolveProject(cwd);
  if (!existsSync(locateDb({ env, cwd, projectDb: project.db }).path)) return undefined;
  const ctx = createContext({ cwd, env: { ...env, IC_BUSY_TIMEOUT: '300ms' }, write: false, project });
  try {
    return readTransaction(ctx, (now) => {
      const active = listLocks(ctx.db, { scope: ctx.scope, activeAt: now });
      const files = active.filter((lock) => lock.type === 'file');
      const activeIds = new Set(active.map((lock) => lock.id));
      // Conflicts in the window whose owner was granted nothing since; the window starts at an event id
      // found by time (events have no time index), so a clock stepped back can hide a conflict from this hint.
      const refused = statement(
        ctx.db,
        "SELECT DISTINCT c.owner, c.lock_id FROM events c WHERE c.id >= ? AND c.type = 'conflict' AND c.scope = ? AND c.created_at >= ? " +
          "AND NOT EXISTS (SELECT 1 FROM events g WHERE g.id > c.id AND g.owner = c.owner AND g.scope = c.scope AND g.type IN ('reserved', 'renewed', 'waited'))",
      ).all(firstEventIdSince(ctx.db, now - WAITING_WINDOW_MS), ctx.scope, now - WAITING_WINDOW_MS) as { owner: string; lock_id: string }[];
      const waiting = new Set(refused.filter((row) => activeIds.has(row.lock_id)).map((row) => row.owner));
      return {
        agents: new Set(active.map((lock) => lock.owner)).size,
        files: files.length,
        waiting: waiting.size,
        mine: me ? files.filter((lock) => lock.owner === me).length : 0,
      };
    });
  } finally {
    ctx.db.close();
  }
}

export function formatStatus(counts: StatusCounts | undefined, me?: string): string {
  if (!counts || (counts.agents === 0 && counts.waiting === 0)) return 'ic: idle';
  const parts = [`${counts.agents} agent${counts.agents === 1 ? '' : 's'}`, `${counts.files} file${counts.files === 1 ? '' : 's'} held${me && counts.mine > 0 ? ` (${counts.mine} yours)` : ''}`];
  if (counts.waiting > 0) parts.push(`${counts.waiting} waiting`);
  return `ic: ${parts.join(' · ')}`;
}

// The statusLine input from Claude Code (if any) tells where the session works and which session it is.
export function statusContext(stdinText: string, fallbackCwd: string): { cwd: string; me?: string } {
  const parsed = parsePayload(stdinText);
  if (!parsed.ok) return { cwd: fallbackCwd };
  const cwd = stringField(objectField(parsed.value, 'workspace'), 'current_dir') ?? stringField(parsed.value, 'cwd') ?? fallbackCwd;
  const sessionId = stringField(parsed.value, 'session_id');
  return { cwd, ...(sessionId ? { me: ownerForSession('claude', sessionId) } : {}) };
}
