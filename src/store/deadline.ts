import { IcError } from '../core/errors';
import { formatDuration } from '../core/time';

// The hook's watchdog, as a deadline rather than a thread (docs/guarantees.md, "Hook deadline"): one per
// hook call, from $IC_HOOK_TIMEOUT, counted from the process's own start. Every step that can block (a
// git process, the stdin read, a busy wait) gets what is left of it, so the hook is still alive to answer
// by IC_HOOK_FAIL when the budget runs out; a killed hook could not (an agent reads a signal as "fail open").

export interface Deadline {
  /** The whole budget ($IC_HOOK_TIMEOUT, resolved once). */
  readonly budgetMs: number;
  /** What a blocking step may still take: the rest of the budget less the reserve for answering; never below 0. */
  leftMs(): number;
  /** The error a step that ran out of time throws: TIMEOUT, naming the step and IC_HOOK_TIMEOUT. */
  exceeded(step: string): IcError;
}

export interface Clock {
  /** Milliseconds, any origin; only differences are used. */
  now(): number;
  /** How long the process ran before the deadline was made (Node's start-up counts against the budget). */
  elapsedMs: number;
}

const processClock = (): Clock => ({ now: Date.now, elapsedMs: process.uptime() * 1000 });

// Kept back from every step for writing the answer and exiting: a fifth of the budget, at most a second
// (a second is what the database waits always left before the deadline existed).
export function answerReserveMs(budgetMs: number): number {
  return Math.min(1_000, budgetMs / 5);
}

export function startDeadline(budgetMs: number, clock: Clock = processClock()): Deadline {
  const endsAt = clock.now() - clock.elapsedMs + budgetMs - answerReserveMs(budgetMs);
  return {
    budgetMs,
    leftMs: () => Math.max(0, Math.floor(endsAt - clock.now())),
    exceeded: (step) => new IcError('TIMEOUT', `${step} did not finish within the hook's budget (IC_HOOK_TIMEOUT=${formatDuration(budgetMs)})`, { step }),
  };
}

// For callers outside a hook (the programmatic API): nothing is bounded.
export const NO_DEADLINE: Deadline = { budgetMs: Infinity, leftMs: () => Infinity, exceeded: (step) => new IcError('TIMEOUT', `${step} did not finish`, { step }) };

export function isDeadlineExceeded(error: unknown): error is IcError {
  return error instanceof IcError && error.code === 'TIMEOUT' && typeof error.details.step === 'string';
}
