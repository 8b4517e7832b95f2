import { spawn, type ChildProcess } from 'node:child_process';
import { constants } from 'node:os';
import type { Lock } from '../core/lock';
import { escapeForDisplay } from '../core/names';
import type { CoordContext } from '../coord/context';
import { endLease, renewLease, type LeaseLost } from '../coord/lease';

const FORWARDED: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

export interface RunOutcome {
  /** CMD's exit code (128 + signal number when it was killed; 127 / 126 when it could not be started). */
  code: number;
  /** Set when the lease was lost at some point while CMD ran: CMD did not run under the lock throughout. */
  lost?: LeaseLost;
}

// Holds `lock` while CMD runs: renews its lease every third of leaseMs, forwards INT/TERM/HUP to CMD,
// ends the lease however CMD ends, and reports whether the lease held throughout. Signal handlers are
// in place before CMD starts, so a signal can never find ic without them (ic would die, CMD run on).
export function runUnderLock(ctx: CoordContext, lock: Lock, leaseMs: number, command: string[]): Promise<RunOutcome> {
  return new Promise((resolve) => {
    let child: ChildProcess | undefined;
    let lost: LeaseLost | undefined;
    const pending: NodeJS.Signals[] = [];
    const handlers = FORWARDED.map((signal) => [signal, () => (child ? child.kill(signal) : pending.push(signal))] as const);
    for (const [signal, handler] of handlers) process.on(signal, handler);

    const noteLost = (why: LeaseLost) => {
      if (lost !== undefined) return;
      lost = why;
      process.stderr.write(`ic: lost lock ${escapeForDisplay(lock.pattern)} (${why}) while the command runs; it keeps running, and ic will exit non-zero\n`);
    };
    const renewTimer = setInterval(
      () => {
        if (lost !== undefined) return;
        try {
          const state = renewLease(ctx, lock, leaseMs);
          if (!state.held) noteLost(state.why);
        } catch (error) {
          process.stderr.write(`ic: could not renew lock ${escapeForDisplay(lock.pattern)}: ${(error as Error).message}\n`);
        }
      },
      Math.max(100, Math.floor(leaseMs / 3)),
    );

    let settled = false;
    const finish = (code: number) => {
      if (settled) return;
      settled = true;
      clearInterval(renewTimer);
      for (const [signal, handler] of handlers) process.off(signal, handler);
      try {
        const state = endLease(ctx, lock, 'command ended');
        if (!state.held) noteLost(state.why);
      } catch (error) {
        process.stderr.write(`ic: could not release lock ${escapeForDisplay(lock.pattern)}: ${(error as Error).message}\n`);
      }
      resolve({ code, ...(lost !== undefined ? { lost } : {}) });
    };

    child = spawn(command[0]!, command.slice(1), { stdio: 'inherit' });
    for (const signal of pending) child.kill(signal);
    child.on('error', (error: NodeJS.ErrnoException) => {
      process.stderr.write(`ic: cannot run ${escapeForDisplay(command[0]!)}: ${error.message}\n`);
      finish(error.code === 'ENOENT' ? 127 : 126);
    });
    child.on('exit', (code, signal) => {
      finish(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0));
    });
  });
}
