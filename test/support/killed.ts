import { readFileSync } from 'node:fs';

// A process is gone when /proc has no entry for it, or only a zombie's (nobody may reap orphans here).
export function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'latin1'));
  } catch {
    return false;
  }
}

// The processes of `pids` still alive after a kill. SIGKILL takes effect when the kernel next runs the process,
// a moment after kill() returns: a process is given up to `waitMs` to go before it counts as a survivor.
export function survivors(pids: number[], waitMs = 5_000): number[] {
  const giveUpAt = Date.now() + waitMs;
  let living = pids.filter(alive);
  while (living.length > 0 && Date.now() < giveUpAt) {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
    living = living.filter(alive);
  }
  return living;
}
