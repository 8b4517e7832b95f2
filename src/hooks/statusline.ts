import { existsSync } from 'node:fs';
import { createContext, readTransaction, resolveProject } from '../coord/context';
import { locateDb } from '../store/discover';
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
  if (!existsSync(locateDb({ env, cwd, projectRoot: project.projectRoot }).path)) return undefined;
  const ctx = createContext({ cwd, env: { ...env, IC_BUSY_TIMEOUT: '300ms' }, write: false });
  try {
    return readTransaction(ctx, (now) => {
      const active = listLocks(ctx.db, { scope: ctx.scope, activeAt: now });
      const files = active.filter((lock) => lock.type === 'file');
      const rows = statement(
        ctx.db,
        "SELECT COUNT(DISTINCT c.owner) AS n FROM events c WHERE c.type = 'conflict' AND c.scope = ? AND c.created_at >= ? " +
          "AND NOT EXISTS (SELECT 1 FROM events g WHERE g.owner = c.owner AND g.scope = c.scope AND g.type IN ('reserved', 'renewed', 'waited') AND g.id > c.id) " +
          'AND EXISTS (SELECT 1 FROM locks l WHERE l.id = c.lock_id AND l.released_at IS NULL AND l.expires_at > ?)',
      ).get(ctx.scope, now - WAITING_WINDOW_MS, now) as { n: number };
      return {
        agents: new Set(active.map((lock) => lock.owner)).size,
        files: files.length,
        waiting: rows.n,
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
