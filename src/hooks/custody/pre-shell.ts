import { isAbsolute, join, normalize } from 'node:path';
import type { Conflict } from '../../core/conflict';
import { isIcError } from '../../core/errors';
import { escapeLiteralPath } from '../../core/glob';
import { shellWrites, type ShellTarget } from '../../core/shell/index';
import { NODE_DISK } from './node-disk';
import { check } from '../../coord/check';
import { createContext, ownScope, resolveProject, resolveWorkspace, writeTransaction, type Workspace } from '../../coord/context';
import { canonicalFilePattern, projectRelative } from '../../coord/paths';
import { recordConflict } from '../../coord/reserve';
import { nearestExistingDir, reserveEdit, type EditOutcome } from '../edit';
import { sameLineage } from '../../core/owner';
import type { ShellRequest } from './types';

// Before a shell command: the files it will visibly write (redirections, sed -i, cp/mv targets, git's
// writing verbs, …) are reserved for its owner; one another owner holds refuses the command with the same
// outcome as an Edit (so decideEdit words the deny). Many files at once (`git stash`, `rm -r dir`, a glob)
// are checked against held locks but never reserved: a lock on `**` would stop every other agent.
// What the reader cannot name is left to the after-command restore. A command that writes nothing opens
// no database.
export async function checkShellCommand(request: ShellRequest, env: NodeJS.ProcessEnv): Promise<EditOutcome> {
  const read = shellWrites(request.command, { cwd: request.cwd, ...(env.HOME ? { home: env.HOME } : {}), disk: NODE_DISK });
  const files = read.targets.flatMap((target) => (target.kind === 'file' ? [target.path] : []));
  const patterns = read.targets.filter((target): target is Extract<ShellTarget, { kind: 'pattern' }> => target.kind === 'pattern');
  if (files.length === 0 && patterns.length === 0) return { kind: 'outside', untrackable: [] };
  const conflictDetail = { via: 'shell', command: commandForEvent(request.command) };
  const blocked = patterns.length > 0 ? await checkPatterns(request, patterns, conflictDetail, env) : undefined;
  if (blocked !== undefined) return { kind: 'conflict', conflicts: blocked.conflicts, untrackable: [], now: blocked.now };
  if (files.length === 0) return { kind: 'outside', untrackable: [] };
  return reserveEdit(
    {
      owner: request.owner,
      cwd: request.cwd,
      projectDir: request.projectDir,
      paths: files,
      ...(request.callId ? { toolUseId: request.callId } : {}),
      conflictDetail,
      reason: shellReason(request.callId),
    },
    env,
  );
}

// Not an edit tool's reason on purpose: a shell command that failed (non-zero exit) may still have written
// its files, so the turn-end release of failed edit calls (releaseFailedCalls) must not take these locks.
export function shellReason(callId: string | undefined): string {
  return callId ? `shell command (agent hook, tool call ${callId})` : 'shell command (agent hook)';
}

// Events keep the command readable but bounded: its first line(s), at most this many characters.
const EVENT_COMMAND_CHARS = 200;

export function commandForEvent(command: string): string {
  const text = command.trim();
  return text.length <= EVENT_COMMAND_CHARS ? text : `${text.slice(0, EVENT_COMMAND_CHARS - 1)}…`;
}

// Many-file writes: each pattern, in the project holding its directory, checked read-only against the
// locks of other owners (the writer's own session and subagents excepted). The refusals are recorded as
// `conflict` events, like a refused reserve's.
async function checkPatterns(
  request: ShellRequest,
  targets: readonly Extract<ShellTarget, { kind: 'pattern' }>[],
  conflictDetail: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
): Promise<{ conflicts: Conflict[]; now: number } | undefined> {
  const groups = new Map<string, { workspace: Workspace; patterns: string[] }>();
  for (const target of targets) {
    const startDir = nearestExistingDir(target.dir);
    const project = resolveProject(startDir);
    if (!project.git) continue; // files outside every repository: no lock can name them
    const pattern = icPattern(project, target);
    if (pattern === undefined) continue;
    const key = `${project.projectRoot}\0${project.scope}`;
    const group = groups.get(key) ?? { workspace: resolveWorkspace(startDir, { env }, project), patterns: [] };
    if (!group.patterns.includes(pattern)) group.patterns.push(pattern);
    groups.set(key, group);
  }
  for (const group of groups.values()) {
    const ctx = await createContext({ workspace: group.workspace, env, write: true });
    try {
      const canonical = group.patterns.flatMap((pattern) => {
        try {
          return [canonicalFilePattern(ctx, pattern)];
        } catch (error) {
          if (isIcError(error)) return []; // a glob ic's patterns cannot say: left to the restore
          throw error;
        }
      });
      if (canonical.length === 0) continue;
      const conflicts = (await check(ctx, { type: 'file', patterns: canonical, owner: request.owner, mode: 'exclusive' })).filter((conflict) => !sameLineage(conflict.held.owner, request.owner));
      if (conflicts.length === 0) continue;
      const now = await writeTransaction(ctx, ownScope(ctx), async (now) => {
        for (const conflict of conflicts.slice(0, 100)) await recordConflict(ctx, conflict, request.owner, now, conflictDetail);
        return now;
      });
      return { conflicts, now };
    } finally {
      ctx.db.close();
    }
  }
  return undefined;
}

// The target as an ic pattern relative to the project's scope: the whole scope for a repository-wide
// write (or a directory above the scope), the directory's path plus the glob otherwise.
function icPattern(project: Pick<Workspace, 'scope'>, target: Extract<ShellTarget, { kind: 'pattern' }>): string | undefined {
  if (target.repo) return '**';
  const dir = normalize(isAbsolute(target.dir) ? target.dir : join(project.scope, target.dir));
  // A name inside the directory, so the scope itself reads as '' (projectRelative answers paths inside it).
  const inside = projectRelative(project.scope, dir, join(dir, '.ic-probe'));
  if (inside === undefined) {
    const scopeInside = `${project.scope}/`.startsWith(dir.endsWith('/') ? dir : `${dir}/`);
    return scopeInside && target.pattern === '**' ? '**' : undefined;
  }
  const rel = inside.slice(0, -'.ic-probe'.length).replace(/\/$/, '');
  if (rel === '') return target.pattern;
  return `${escapeLiteralPath(rel)}/${target.pattern}`;
}
