import type { Conflict } from '../core/conflict';
import { formatDuration } from '../core/time';
import type { Lock } from '../core/lock';
import { isRunOwner, runStarter } from '../core/owner';
import { shellQuote } from '../core/shell';

// How people see the lock of a `lock NAME -- CMD` run: held while its command runs, by the person who
// started it. Its lease (renewed while the command runs) and its owner OWNER/run-ID are internals: "until
// 07:32:29 (in 14s)" and "ask alice/run-azlrqbyr" misled (issue #22).
export const RUN_LEASE_TEXT = `while its command runs (lease renewed every ${formatDuration(15_000)})`;

export function isRunLock(lock: Pick<Lock, 'type' | 'owner'>): boolean {
  return lock.type === 'named' && isRunOwner(lock.owner);
}

// "alice's run of `npm test`": who started it, and what it runs (the lock's reason is the command).
export function runHolder(lock: Pick<Lock, 'owner' | 'reason'>): string {
  return `${runStarter(lock.owner)}'s run${lock.reason ? ` of \`${lock.reason}\`` : ''}`;
}

// How long the run's lock lasts: while its command runs, or (its ic was killed) while the orphaned command
// still does.
export function runUntilText(conflict: Pick<Conflict, 'state' | 'pid'>): string {
  if (conflict.state === 'command_running') {
    const pid = conflict.pid;
    return `its ic process is gone but its command${pid !== undefined ? ` (process group ${pid})` : ''} still runs on this host, so the lock stays held until it ends${pid !== undefined ? ` (stop it with: kill -- -${pid})` : ''}`;
  }
  return RUN_LEASE_TEXT;
}

// The refusal of a run's lock, as describeConflict words every other.
export function describeRunConflict(conflict: Conflict): string {
  const held = conflict.held;
  const person = runStarter(held.owner);
  return `named lock "${held.pattern}" (id ${held.id}) is held by ${runHolder(held)}, ${runUntilText(conflict)}; next: wait for it (\`coord lock ${shellQuote(held.pattern)} -- CMD\` waits by default), see \`coord who\`, or ask ${person}`;
}
