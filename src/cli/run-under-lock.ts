import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import type { Lock } from '../core/lock';
import type { CoordContext } from '../coord/context';
import { release } from '../coord/release';
import { renew } from '../coord/renew';

const FORWARDED: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

// Holds `lock` while CMD runs: renews it at a third of its TTL, forwards INT/TERM/HUP to CMD, releases it
// however CMD ends, and resolves to CMD's exit code (128 + signal number when CMD was killed).
export function runUnderLock(ctx: CoordContext, lock: Lock, ttlMs: number, command: string[]): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command[0]!, command.slice(1), { stdio: 'inherit' });
    const forward = (signal: NodeJS.Signals) => () => {
      child.kill(signal);
    };
    const handlers = FORWARDED.map((signal) => [signal, forward(signal)] as const);
    for (const [signal, handler] of handlers) process.on(signal, handler);

    const renewTimer = setInterval(() => {
      try {
        const result = renew(ctx, { ids: [lock.id], owner: lock.owner, ttlMs });
        if (result.locks.length === 0) process.stderr.write(`ic: lost lock ${lock.pattern} (${result.not_renewed[0]?.why ?? 'unknown'}); the command keeps running\n`);
      } catch (error) {
        process.stderr.write(`ic: could not renew lock ${lock.pattern}: ${(error as Error).message}\n`);
      }
    }, Math.max(100, Math.floor(ttlMs / 3)));

    let settled = false;
    const finish = (code: number) => {
      if (settled) return;
      settled = true;
      clearInterval(renewTimer);
      for (const [signal, handler] of handlers) process.off(signal, handler);
      try {
        release(ctx, { ids: [lock.id], owner: lock.owner, all: false, force: false, reason: 'command ended' });
      } catch (error) {
        process.stderr.write(`ic: could not release lock ${lock.pattern}: ${(error as Error).message}\n`);
      }
      resolve(code);
    };
    child.on('error', (error: NodeJS.ErrnoException) => {
      process.stderr.write(`ic: cannot run ${command[0]}: ${error.message}\n`);
      finish(error.code === 'ENOENT' ? 127 : 126);
    });
    child.on('exit', (code, signal) => {
      finish(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0));
    });
  });
}
