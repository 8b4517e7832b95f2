import { spawn, type ChildProcess } from 'node:child_process';
import { constants } from 'node:os';
import type { Lock } from '../core/lock';
import { escapeForDisplay } from '../core/names';
import type { CoordContext } from '../coord/context';
import { endLease, renewLease, type LeaseLost } from '../coord/lease';
import { recordRun } from '../coord/run-process';

const FORWARDED: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

export interface RunOutcome {
  /** CMD's exit code (128 + signal number when it was killed; 127 / 126 when it could not be started). */
  code: number;
  /** Set when the lease was lost at some point while CMD ran: CMD did not run under the lock throughout. */
  lost?: LeaseLost;
  /** The last of INT/TERM/HUP that ic itself received while CMD ran: ic then dies by it (see reraise). */
  signal?: NodeJS.Signals;
}

// Sends `signal` to CMD's whole process group (CMD leads a group of its own: see runUnderLock).
function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    child.kill(signal); // the group is gone, or never formed
  }
}

// Holds `lock` while CMD runs: renews its lease every third of leaseMs, forwards INT/TERM/HUP to CMD's
// process group, ends the lease however CMD ends, and reports whether the lease held throughout. Signal
// handlers are in place before CMD starts, so a signal can never find ic without them (ic would die, CMD
// run on). CMD runs in a process group (and session) of its own, recorded with the lease: if ic is
// killed outright, the lock stays held on this host while anything in that group lives, as flock's
// lock stays with an orphan (coord/run-process.ts).
export function runUnderLock(ctx: CoordContext, lock: Lock, leaseMs: number, command: string[]): Promise<RunOutcome> {
  return new Promise(async (resolve) => {
    let child: ChildProcess | undefined;
    let lost: LeaseLost | undefined;
    let received: NodeJS.Signals | undefined;
    const pending: NodeJS.Signals[] = [];
    const forward = (signal: NodeJS.Signals) => {
      received = signal;
      if (child?.pid !== undefined) signalGroup(child, signal);
      else pending.push(signal);
    };
    const handlers = FORWARDED.map((signal) => [signal, () => forward(signal)] as const);
    for (const [signal, handler] of handlers) process.on(signal, handler);

    const noteLost = (why: LeaseLost) => {
      if (lost !== undefined) return;
      lost = why;
      process.stderr.write(`ic: lost lock ${escapeForDisplay(lock.pattern)} (${why}) while the command runs; it keeps running, and ic will exit non-zero\n`);
    };
    let settled = false;
    // The store's calls one after another: a renewal due while the run is recorded or the lease ends waits for
    // it (on a server, two transactions on one connection would interleave their statements).
    let storeCalls: Promise<unknown> = Promise.resolve();
    const inTurn = <T>(call: () => Promise<T>): Promise<T> => {
      const turn = storeCalls.then(call, call);
      storeCalls = turn.catch(() => undefined);
      return turn;
    };
    const renewTimer = setInterval(
      async () => {
        if (lost !== undefined || settled) return;
        try {
          const state = await inTurn(async () => (settled ? undefined : renewLease(ctx, lock, leaseMs))); // none after the lease ends
          if (state && !state.held) noteLost(state.why);
        } catch (error) {
          process.stderr.write(`ic: could not renew lock ${escapeForDisplay(lock.pattern)}: ${(error as Error).message}\n`);
        }
      },
      Math.max(100, Math.floor(leaseMs / 3)),
    );

    const finish = async (code: number) => {
      if (settled) return;
      settled = true;
      clearInterval(renewTimer);
      for (const [signal, handler] of handlers) process.off(signal, handler);
      try {
        const state = await inTurn(() => endLease(ctx, lock, 'command ended'));
        if (!state.held) noteLost(state.why);
      } catch (error) {
        process.stderr.write(`ic: could not release lock ${escapeForDisplay(lock.pattern)}: ${(error as Error).message}\n`);
      }
      resolve({ code, ...(lost !== undefined ? { lost } : {}), ...(received !== undefined ? { signal: received } : {}) });
    };

    // detached: CMD leads a new session and process group, so the whole tree is what the lock waits for,
    // and a terminal's Ctrl-C reaches it through ic (which forwards it) rather than behind ic's back.
    child = spawn(command[0]!, command.slice(1), { stdio: 'inherit', detached: true });
    // Listened to at once (CMD may end while its record is written: on a server that write waits for I/O), and
    // finished only after that write, so that the store's calls stay one after another.
    let recorded = false;
    let endedWith: number | undefined;
    const ended = (code: number) => (recorded ? void finish(code) : (endedWith ??= code));
    child.on('error', (error: NodeJS.ErrnoException) => {
      process.stderr.write(`ic: cannot run ${escapeForDisplay(command[0]!)}: ${error.message}\n`);
      ended(error.code === 'ENOENT' ? 127 : 126);
    });
    child.on('exit', (code, signal) => ended(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0)));
    if (child.pid !== undefined) {
      try {
        await inTurn(() => recordRun(ctx, lock, child!.pid!));
      } catch (error) {
        process.stderr.write(`ic: could not record the command with lock ${escapeForDisplay(lock.pattern)}: ${(error as Error).message}\n`);
      }
      for (const signal of pending) signalGroup(child, signal);
    }
    recorded = true;
    if (endedWith !== undefined) await finish(endedWith);
  });
}

// After cleanup, ic dies by the signal it was stopped with, as flock does: a shell then stops its loop or
// list (bash ends `for …; do coord lock x -- CMD; done` only when its child died by SIGINT). The handler
// is reset first, so the signal takes its default action.
export function reraise(signal: NodeJS.Signals): void {
  process.removeAllListeners(signal);
  process.kill(process.pid, signal);
}
