import { IcError } from '../../core/errors';
import { formatDuration, parseNonNegativeDuration, parseTtl } from '../../core/time';
import { randomId } from '../../core/ids';
import { escapeForDisplay, validateName } from '../../core/names';
import { runOwner } from '../../core/owner';
import type { CoordContext } from '../../coord/context';
import { takeName } from '../../coord/named';
import type { ReserveOutcome } from '../../coord/reserve';
import { retryWithBackoff, type Sleep } from '../../coord/wait';
import type { Conflict } from '../../core/conflict';
import { openContext, resolveOwner, type CommonOptions } from '../common';
import { failure, toIcError, type Reply } from '../reply';
import { reraise, runUnderLock } from '../run-under-lock';
import { isRunLock, runHolder, runUntilText } from '../run-lease-text';
import { replyForOutcome } from './reserve';

export interface RunOptions extends CommonOptions {
  ttl?: string;
  /** A duration, false for -n/--no-wait, undefined to wait as long as it takes. */
  wait?: string | false;
  reason?: string;
  conflictExitCode?: string;
}

// A run holds its lock on a short lease renewed while CMD lives, so a SIGKILLed ic frees it within one lease.
export const RUN_LEASE_MS = 15_000;
export const MIN_RUN_LEASE_MS = 5_000;
export const DEFAULT_CONFLICT_EXIT_CODE = 75;

// `coord lock NAME -- CMD`: wait for the lock under a per-run owner (OWNER/run-ID, so two runs by one
// owner serialise), run CMD, and exit with its code; the conflict exit code when the lock could not be
// had or was lost while CMD ran.
export async function runCommandUnderLock(name: string, command: string[], options: RunOptions, emit: (reply: Reply) => void): Promise<void> {
  const owner = await resolveOwner(options, process.env);
  const leaseMs = options.ttl !== undefined ? parseLease(options.ttl) : RUN_LEASE_MS;
  const waitMs = options.wait === false ? 0 : options.wait !== undefined ? parseNonNegativeDuration(options.wait, '--wait', 86_400_000) : Infinity;
  const conflictExitCode = parseExitCode(options.conflictExitCode);
  const lockName = validateName(name, 'lock name');
  const reason = options.reason ?? [...escapeForDisplay(command.join(' '))].slice(0, 200).join(''); // whole characters
  const ctx = await openContext(options, true);
  let received: NodeJS.Signals | undefined;
  try {
    const waited = await waitForLock(ctx, { name: lockName, owner: runOwner(owner, randomId()), ttlMs: leaseMs, reason }, waitMs);
    if (!waited.outcome.granted) return emit({ ...replyForOutcome(waited.outcome, waited.timedOut), exitCode: conflictExitCode });
    try {
      const { code, lost, signal } = await runUnderLock(ctx, waited.outcome.locks[0]!, leaseMs, command);
      if (lost !== undefined) process.stderr.write(`ic: the command exited ${code}, but it did not hold lock ${escapeForDisplay(lockName)} throughout (${lost}); exiting ${conflictExitCode}\n`);
      process.exitCode = lost !== undefined ? conflictExitCode : code;
      received = signal;
    } catch (error) {
      emit(failure(toIcError(error)));
    }
  } finally {
    ctx.db.close();
  }
  if (received !== undefined) reraise(received);
}

// Retries until granted or the wait runs out. Quiet: one line on stderr when it starts waiting, and one
// each time the holder changes (another lock, or the same run now held by its orphaned command), never a
// repeat of the same line (a long suite put ~40 copies into an agent's context).
export async function waitForLock(
  ctx: CoordContext,
  input: { name: string; owner: string; ttlMs: number; reason: string },
  waitMs: number,
  options: { sleep?: Sleep; write?: (line: string) => void } = {},
): Promise<{ outcome: ReserveOutcome; timedOut: boolean }> {
  const write = options.write ?? ((line: string) => process.stderr.write(`${line}\n`));
  let lastHolder: string | undefined;
  const take = { type: 'named' as const, ...input };
  const result = await retryWithBackoff(
    async (attempt) => {
      const value = await takeName(ctx, take, attempt);
      if (!value.granted && waitMs > 0) {
        const conflict = value.conflicts[0]!;
        const holder = `${conflict.held.id}/${conflict.state}`;
        if (holder !== lastHolder) write(waitingNotice(input.name, conflict, lastHolder !== undefined));
        lastHolder = holder;
      }
      return { done: value.granted, value };
    },
    { waitMs, clock: ctx.clock, ...(options.sleep ? { sleep: options.sleep } : {}) },
  );
  return { outcome: result.value, timedOut: result.timedOut && waitMs > 0 }; // -n is a conflict, not a timeout
}

export function waitingNotice(name: string, conflict: Conflict, changed: boolean): string {
  const held = conflict.held;
  const verb = changed ? 'still waiting' : 'waiting';
  if (isRunLock(held)) return escapeForDisplay(`ic: ${verb} for ${name} (held by ${runHolder(held)} since ${new Date(held.created_at).toISOString()}, ${runUntilText(conflict)})`);
  const reason = held.reason ? `, reason: ${held.reason}` : '';
  return escapeForDisplay(`ic: ${verb} for ${name} (held by ${held.owner} since ${new Date(held.created_at).toISOString()}${reason})`);
}

// The lease is renewed every third of it, so it must leave room for a slow renewal: at least 5s.
function parseLease(input: string): number {
  const ms = parseTtl(input);
  if (ms < MIN_RUN_LEASE_MS) {
    throw new IcError('INVALID_INPUT', `--ttl with a command is the lease renewed while it runs; it must be at least ${formatDuration(MIN_RUN_LEASE_MS)}, got "${input}"`, {
      value: input,
      min: formatDuration(MIN_RUN_LEASE_MS),
    });
  }
  return ms;
}

function parseExitCode(input: string | undefined): number {
  if (input === undefined) return DEFAULT_CONFLICT_EXIT_CODE;
  if (!/^\d{1,3}$/.test(input) || Number(input) > 255) throw new IcError('INVALID_INPUT', `--conflict-exit-code must be a whole number from 0 to 255, got "${input}"`, { value: input });
  return Number(input);
}
