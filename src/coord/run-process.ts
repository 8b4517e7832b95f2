import type { Lock } from '../core/lock';
import { allLapsedRunLocks, forgetRunProcess, recordRunProcess, type RunProcessRow } from '../store/run-processes';
import { getLock, withoutBase, type StoredLock } from '../store/locks';
import { processStartTime, thisMachine } from './client-process';
import { ownScope, readTransaction, writeTransaction, type CoordContext } from './context';
import { inScopes, type Connection } from '../store/connection';

// The process of a `lock NAME -- CMD` run outlives a SIGKILLed ic (flock's orphan keeps its lock too), so
// the run records its command with the lease and a lapsed lease does not free the lock while that command
// (its whole process group) still lives on this host. Linux only (/proc); elsewhere the lease alone counts.

// This machine, pid namespace and boot: a pid means something only where it was read (client-process.ts reads /proc).
export function thisHost(): string | undefined {
  const machine = thisMachine();
  return machine === undefined ? undefined : `${machine.host}|${machine.boot}`;
}

// Alive: the leader with the same start time, or (leader gone) any member of its process group. The
// kernel does not reuse a pid while a group of that id exists, so a live group of that id is ours; a
// process with that pid but another start time means our group has ended. Another host: cannot tell.
export function runProcessState(row: RunProcessRow): 'alive' | 'ended' | 'elsewhere' {
  if (row.host !== thisHost()) return 'elsewhere';
  const started = processStartTime(row.pid);
  if (started !== undefined) return started === row.started ? 'alive' : 'ended';
  try {
    process.kill(-row.pid, 0);
    return 'alive';
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM' ? 'alive' : 'ended';
  }
}

// Records the command started for the run holding `lock`; false where its identity cannot be read.
export async function recordRun(ctx: CoordContext, lock: Lock, pid: number): Promise<boolean> {
  const host = thisHost();
  const started = host === undefined ? undefined : processStartTime(pid);
  if (host === undefined || started === undefined) return false;
  const row = { host, pid, started };
  return writeTransaction(ctx, inScopes(lock.scope), async () => {
    const stored = await getLock(ctx.db, lock.id);
    if (stored === undefined) return false;
    await recordRunProcess(ctx.db, stored.seq, row);
    return true;
  });
}

export interface OrphanRun {
  lock: Lock;
  pid: number;
}

// A run lock on `name` whose lease lapsed (expired, or swept as expired) but whose command still lives on
// this host: it still holds the name. Rows of commands found ended are deleted on the way.
export async function liveOrphanRun(ctx: CoordContext, name: string): Promise<OrphanRun | undefined> {
  if (thisHost() === undefined) return undefined;
  const rows = (await readTransaction(ctx, async (now) => allLapsedRunLocks(ctx.db, now))).filter((row) => row.scope === ctx.scope && row.pattern === name);
  const ended: number[] = [];
  let alive: OrphanRun | undefined;
  for (const row of rows) {
    const state = runProcessState(row);
    if (state === 'alive') {
      alive = { lock: withoutBase(row), pid: row.pid };
      break;
    }
    if (state === 'ended') ended.push(row.seq);
  }
  if (ended.length > 0) {
    await writeTransaction(ctx, ownScope(ctx), async () => {
      for (const seq of ended) await forgetRunProcess(ctx.db, seq);
    });
  }
  return alive;
}

// Inside a read: the run locks whose lease lapsed but whose command still lives on this host, marked with
// that command's pid. Read only (an ended command's row is left for the next lock call to forget).
export async function liveOrphanRunLocks(db: Connection, now: number): Promise<StoredLock[]> {
  if (thisHost() === undefined) return [];
  return (await allLapsedRunLocks(db, now)).filter((row) => runProcessState(row) === 'alive').map(({ host: _host, pid, started: _started, ...lock }) => ({ ...lock, command_pid: pid }));
}
