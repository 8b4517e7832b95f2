import { DEFAULT_TTL_MS } from '../core/lock';
import { release, type ReleaseResult } from './release';
import type { CoordContext } from './context';
import { liveOrphanRun } from './run-process';
import type { Attempt } from './wait';
import { reserveOnce, type ReserveOutcome } from './reserve';

export type NameType = 'named' | 'claim';

// Named locks and claims are exclusive reservations of one name in their own namespace.
export async function takeName(ctx: CoordContext, input: { type: NameType; name: string; owner: string; ttlMs?: number; reason: string | null }, attempt?: Attempt): Promise<ReserveOutcome> {
  // A run's lock whose ic was killed is still held while its command lives (run-process.ts).
  const orphan = input.type === 'named' ? await liveOrphanRun(ctx, input.name) : undefined;
  if (orphan !== undefined && orphan.lock.owner !== input.owner)
    return { granted: false, conflicts: [{ pattern: input.name, held: orphan.lock, example: input.name, state: 'command_running', pid: orphan.pid }] };
  return reserveOnce(
    scopedFor(ctx, input.type),
    { type: input.type, patterns: [input.name], owner: input.owner, mode: 'exclusive', ttlMs: input.ttlMs ?? DEFAULT_TTL_MS[input.type], reason: input.reason },
    attempt,
  );
}

// Releases the owner's lock or claim on the name; `force` releases another owner's.
export async function dropName(ctx: CoordContext, input: { type: NameType; name: string; owner: string | undefined; force: boolean; reason: string | null }): Promise<ReleaseResult> {
  return release(scopedFor(ctx, input.type), { ids: [], owner: input.owner, pattern: input.name, type: input.type, all: false, force: input.force, reason: input.reason });
}

// Claims live in the repository's scope (one work item per repository, whatever the worktree); named
// locks in the work tree's.
function scopedFor(ctx: CoordContext, type: NameType): CoordContext {
  return type === 'claim' && ctx.claimScope !== ctx.scope ? { ...ctx, scope: ctx.claimScope } : ctx;
}
