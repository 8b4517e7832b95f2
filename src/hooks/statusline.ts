import { countOf } from '../core/plural';
import { createContext, readTransaction } from '../coord/context';
import { recentCommitByOther } from '../coord/commits';
import { openRequestsIn } from '../coord/handoff';
import { statusCounts, type StatusCounts } from '../coord/status';
import { ownerForSession } from './identity';
import { sameLineage } from '../core/owner';
import { objectField, parsePayload, stringField } from './payload';

export interface ProjectStatus extends StatusCounts {
  /** The newest commit by another agent in the last half hour (post-commit hook, install --git-index). */
  head_moved?: { by: string; sha: string; ago_ms: number };
  /** Open hand-off requests for my claims (`claim ITEM --ask` by another agent). */
  handoff_requests?: { item: string; by: string }[];
}

const HEAD_MOVED_WINDOW_MS = 30 * 60_000;

// The counts for the project holding `cwd`. A project without a database reads as empty (nothing created).
export async function projectStatus(cwd: string, env: NodeJS.ProcessEnv, me?: string): Promise<ProjectStatus> {
  const ctx = await createContext({ cwd, env: { ...env, IC_BUSY_TIMEOUT: '300ms' }, write: false });
  try {
    const counts: ProjectStatus = await statusCounts(ctx, me);
    const commit = await recentCommitByOther(ctx, (owner) => me === undefined || !sameLineage(owner, me), HEAD_MOVED_WINDOW_MS);
    if (commit) {
      const sha = String((JSON.parse(commit.event.detail ?? '{}') as { sha?: unknown }).sha ?? '');
      counts.head_moved = { by: commit.event.owner, sha, ago_ms: Math.max(0, commit.now - commit.event.created_at) };
    }
    if (me !== undefined) {
      const requests = await readTransaction(ctx, async (now) => openRequestsIn(ctx, (owner) => sameLineage(owner, me), now));
      if (requests.length > 0) counts.handoff_requests = requests.map(({ item, by }) => ({ item, by }));
    }
    return counts;
  } finally {
    ctx.db.close();
  }
}

function ago(ms: number): string {
  if (ms < 60_000) return `${Math.floor(ms / 1000)}s ago`;
  if (ms < 3_600_000) return `${Math.floor(ms / 60_000)}m ago`;
  return `${Math.floor(ms / 3_600_000)}h ago`;
}

// "7 files + 2 globs held": a glob may cover many files, so the two are never added up.
function heldPart(counts: StatusCounts, me?: string): string {
  const held = [counts.files > 0 || counts.globs === 0 ? countOf(counts.files, 'file') : '', counts.globs > 0 ? countOf(counts.globs, 'glob') : ''].filter(Boolean).join(' + ');
  return `${held} held${me && counts.mine > 0 ? ` (${counts.mine} yours)` : ''}`;
}

export function formatStatus(counts: ProjectStatus | undefined, me?: string): string {
  if (!counts) return 'ic: idle';
  const moved = counts.head_moved ? [`HEAD moved by ${counts.head_moved.by} ${ago(counts.head_moved.ago_ms)}`] : [];
  if (counts.handoff_requests?.length) moved.unshift(counts.handoff_requests.map(({ item, by }) => `${by} asks for ${item}`).join(', '));
  if (counts.agents === 0 && counts.waiting === 0) return ['ic: idle', ...moved].join(' · ');
  const parts = [countOf(counts.agents, 'agent'), heldPart(counts, me)];
  if (counts.waiting > 0) parts.push(`${countOf(counts.waiting, 'agent')} refused in 5m`); // refused in the last 5 minutes by a lock still held
  return `ic: ${[...parts, ...moved].join(' · ')}`;
}

// The statusLine input from Claude Code (if any) tells where the session works and which session it is.
export function statusContext(stdinText: string, fallbackCwd: string): { cwd: string; me?: string } {
  const parsed = parsePayload(stdinText);
  if (!parsed.ok) return { cwd: fallbackCwd };
  const cwd = stringField(objectField(parsed.value, 'workspace'), 'current_dir') ?? stringField(parsed.value, 'cwd') ?? fallbackCwd;
  const sessionId = stringField(parsed.value, 'session_id');
  return { cwd, ...(sessionId ? { me: ownerForSession('claude', sessionId) } : {}) };
}
