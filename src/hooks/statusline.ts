import { createContext } from '../coord/context';
import { statusCounts, type StatusCounts } from '../coord/status';
import { ownerForSession } from './identity';
import { objectField, parsePayload, stringField } from './payload';

export type { StatusCounts };

// The counts for the project holding `cwd`. A project without a database reads as empty (nothing created).
export function projectStatus(cwd: string, env: NodeJS.ProcessEnv, me?: string): StatusCounts {
  const ctx = createContext({ cwd, env: { ...env, IC_BUSY_TIMEOUT: '300ms' }, write: false });
  try {
    return statusCounts(ctx, me);
  } finally {
    ctx.db.close();
  }
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

// "7 files + 2 globs held": a glob may cover many files, so the two are never added up.
function heldPart(counts: StatusCounts, me?: string): string {
  const held = [counts.files > 0 || counts.globs === 0 ? plural(counts.files, 'file') : '', counts.globs > 0 ? plural(counts.globs, 'glob') : ''].filter(Boolean).join(' + ');
  return `${held} held${me && counts.mine > 0 ? ` (${counts.mine} yours)` : ''}`;
}

export function formatStatus(counts: StatusCounts | undefined, me?: string): string {
  if (!counts || (counts.agents === 0 && counts.waiting === 0)) return 'ic: idle';
  const parts = [plural(counts.agents, 'agent'), heldPart(counts, me)];
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
