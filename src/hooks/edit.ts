import type { Conflict } from '../core/conflict';
import { DEFAULT_TTL_MS } from '../core/lock';
import { createContext, resolveProject } from '../coord/context';
import { reserveOnce } from '../coord/reserve';
import { literalPatterns } from './project-paths';

export interface EditRequest {
  owner: string;
  cwd: string;
  paths: string[];
}

export type EditOutcome =
  | { kind: 'outside'; untrackable: { path: string; why: string }[] }
  | { kind: 'granted'; patterns: string[]; untrackable: { path: string; why: string }[] }
  | { kind: 'conflict'; conflicts: Conflict[]; untrackable: { path: string; why: string }[] };

// Reserves every edited file inside the project for the session's owner, all or none (exclusive, default
// TTL, renewing its own). Nothing inside the project means the database is never opened.
export function reserveEdit(request: EditRequest, env: NodeJS.ProcessEnv): EditOutcome {
  const project = resolveProject(request.cwd);
  const { patterns, untrackable } = literalPatterns(project, request.cwd, request.paths);
  if (patterns.length === 0) return { kind: 'outside', untrackable };
  const ctx = createContext({ cwd: request.cwd, env, write: true, project });
  try {
    const outcome = reserveOnce(ctx, {
      type: 'file',
      patterns: patterns.map((p) => p.pattern),
      owner: request.owner,
      mode: 'exclusive',
      ttlMs: DEFAULT_TTL_MS.file,
      reason: 'editing (agent hook)',
    });
    if (outcome.granted) return { kind: 'granted', patterns: patterns.map((p) => p.pattern), untrackable };
    return { kind: 'conflict', conflicts: outcome.conflicts, untrackable };
  } finally {
    ctx.db.close();
  }
}
