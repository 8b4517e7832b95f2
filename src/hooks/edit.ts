import { dirname, isAbsolute, join, normalize } from 'node:path';
import type { Conflict } from '../core/conflict';
import { DEFAULT_TTL_MS } from '../core/lock';
import { createContext, ownScope, resolveProject, resolveWorkspace, writeTransaction, type CoordContext, type Workspace } from '../coord/context';
import { reserveOnce, type ReserveOutcome } from '../coord/reserve';
import { transfer } from '../coord/transfer';
import { markEdits } from '../store/custody';
import { sameLineage } from '../core/owner';
import { literalPatterns } from '../coord/paths';
import { isDirectory } from '../store/discover';

export interface EditRequest {
  owner: string;
  /** Where relative paths are read from: the payload's cwd, else $CLAUDE_PROJECT_DIR, else the hook's cwd. */
  cwd: string;
  /** The agent's project ($CLAUDE_PROJECT_DIR, else cwd). Not used to place files: each file's own project decides. */
  projectDir: string;
  paths: string[];
  /** The agent's id for this tool call: recorded in the lock's reason so a refused call can take back what it took. */
  toolUseId?: string;
  /** Added to each `conflict` event a refusal records (a shell command: `{via: "shell", command}`). */
  conflictDetail?: Record<string, unknown>;
  /** The lock reason, when not an edit tool's (see editReason). */
  reason?: string;
}

type Untrackable = { path: string; why: string }[];

export type EditOutcome =
  | { kind: 'outside'; untrackable: Untrackable }
  | { kind: 'granted'; patterns: string[]; untrackable: Untrackable }
  | { kind: 'conflict'; conflicts: Conflict[]; untrackable: Untrackable; now: number };

// The lock reason an edit hook writes; a renewal keeps the reason of the call that created the lock.
export function editReason(toolUseId: string | undefined): string {
  return toolUseId ? `editing (agent hook, tool call ${toolUseId})` : 'editing (agent hook)';
}

// Reserves every edited file for the session's owner (exclusive, default TTL, renewing its own), each in
// the database of the repository that contains it: the project is found from the file's own path, so a
// `cd` elsewhere or a session started in a parent directory changes nothing. All or none within a
// repository. Files in no repository and below no `ic init` root are allowed without a database.
// `known`: the session's workspace, as the hook call found it (a file in that work tree is not looked for again).
export async function reserveEdit(request: EditRequest, env: NodeJS.ProcessEnv, known?: Workspace): Promise<EditOutcome> {
  const groups = groupByProject(request, env, known);
  const untrackable: Untrackable = [];
  const granted: string[] = [];
  for (const group of groups) {
    const { patterns, untrackable: odd } = literalPatterns(group.workspace, request.cwd, group.paths);
    untrackable.push(...odd);
    if (patterns.length === 0) continue;
    const ctx = await createContext({ workspace: group.workspace, env, write: true });
    try {
      const outcome = await reserveInLineage(ctx, request, patterns);
      if (outcome.kind === 'conflict') return { ...outcome, untrackable };
      granted.push(...patterns.map((p) => p.pattern));
    } finally {
      ctx.db.close();
    }
  }
  return granted.length > 0 ? { kind: 'granted', patterns: granted, untrackable } : { kind: 'outside', untrackable };
}

// A lock held by the requester's own session or subagent is handed over, not refused: a subagent may edit
// what its session holds, and the session what its finished subagents held. Any other holder refuses.
// One transaction: the try, the hand-over and the grant (nested as savepoints) commit together, and a
// hand-over is never recorded as a conflict.
async function reserveInLineage(
  ctx: CoordContext,
  request: EditRequest,
  literals: { pattern: string; path: string }[],
): Promise<{ kind: 'granted' } | { kind: 'conflict'; conflicts: Conflict[]; now: number }> {
  const input = {
    type: 'file' as const,
    patterns: literals.map((literal) => literal.pattern),
    owner: request.owner,
    mode: 'exclusive' as const,
    ttlMs: DEFAULT_TTL_MS.file,
    neverShorten: true, // a running shell command's cover (docs/sessions.md) outlives this edit's renewal
    reason: request.reason ?? editReason(request.toolUseId),
    ...(request.conflictDetail ? { conflictDetail: request.conflictDetail } : {}),
  };
  return writeTransaction(ctx, ownScope(ctx), async (now) => {
    let outcome: ReserveOutcome;
    try {
      // A savepoint: refused only by its own lineage, the try is undone (no conflict events) and handed over.
      outcome = await writeTransaction(ctx, ownScope(ctx), async () => {
        const first = await reserveOnce(ctx, input);
        if (!first.granted && first.conflicts.length > 0 && first.conflicts.every((c) => c.state === 'active' && sameLineage(c.held.owner, request.owner))) throw new LineageHandOver(first.conflicts);
        return first;
      });
    } catch (error) {
      if (!(error instanceof LineageHandOver)) throw error;
      for (const conflict of error.conflicts) await transfer(ctx, { from: conflict.held.owner, to: request.owner, by: request.owner, force: true, only: { file: conflict.held.pattern } }); // its own lineage: recorded as forced, by the taker
      outcome = await reserveOnce(ctx, input);
    }
    if (!outcome.granted) return { kind: 'conflict' as const, conflicts: outcome.conflicts, now }; // the database's time: the deny's "in 13m"
    const paths = literals.map((literal) => literal.path);
    // The tool writes next: until its write is recorded, a restore must not put an older record over it.
    await markEdits(ctx.db, ctx.scope, request.owner, paths, now);
    return { kind: 'granted' as const };
  });
}

// Thrown out of the savepoint of a try refused only by the editor's own session or subagents.
class LineageHandOver extends Error {
  constructor(readonly conflicts: Conflict[]) {
    super('held by the same lineage');
  }
}

export interface ProjectGroup {
  /** Resolved from the nearest existing directory of the group's first file. */
  workspace: Workspace;
  paths: string[];
}

// Each path goes to the project that contains it, found from its nearest existing directory: its git
// repository, else the nearest `ic init` root above the file (never the session's working directory, so
// sessions started in /srv and /srv/proj meet on /srv/proj/x). A file in neither has nothing to coordinate.
export function groupByProject(request: Pick<EditRequest, 'cwd' | 'paths'>, env: NodeJS.ProcessEnv, known?: Workspace): ProjectGroup[] {
  const groups = new Map<string, ProjectGroup>();
  for (const path of request.paths) {
    const absolute = normalize(isAbsolute(path) ? path : join(request.cwd, path));
    const startDir = nearestExistingDir(dirname(absolute));
    const project = resolveProject(startDir, undefined, { known });
    if (project.unmarked) continue;
    const key = `${project.projectRoot}\0${project.scope}`;
    const group = groups.get(key) ?? { workspace: project === known ? { ...known, cwd: startDir } : resolveWorkspace(startDir, { env }, project), paths: [] };
    group.paths.push(absolute);
    groups.set(key, group);
  }
  return [...groups.values()];
}

// The file may not exist yet (Write of a new file, a patch adding a directory): start from what does.
export function nearestExistingDir(dir: string): string {
  for (let current = dir; ; current = dirname(current)) {
    if (isDirectory(current)) return current; // one stat a level
    if (dirname(current) === current) return current;
  }
}
