import { Command } from 'commander';
import { IcError } from '../../core/errors';
import { parseNonNegativeDuration, parseTtl } from '../../core/time';
import { DEFAULT_TTL_MS, viewLock, type LockView } from '../../core/lock';
import { commandLinePattern } from '../../coord/paths';
import { reserveOnce, reserveWaiting, type ReserveOutcome } from '../../coord/reserve';
import { checkWorkLimit } from '../../core/conflict';
import { shellQuote } from '../../core/shell';
import { describeConflict, ownerOption, projectFor, resolveOwner, viewConflict, commonCommand, withContext, type CommonOptions } from '../common';
import { failure, success, type Reply } from '../reply';
import { shortOwner, whenText } from '../render';

interface ReserveOptions extends CommonOptions {
  ttl?: string;
  shared?: boolean;
  reason?: string;
  wait?: string;
}

export function reserveCommand(emit: (reply: Reply) => void): Command {
  return commonCommand('reserve', 'reserve file patterns, all or none')
    .argument('<patterns...>', 'glob patterns, relative to the current directory (":/PATTERN": from the scope root)')
    .addOption(ownerOption())
    .option('--ttl <duration>', 'time to live: 90s, 15m, 2h or 1d (default 15m, at most 24h)')
    .option('--shared', 'take shared locks (exclusive by default)')
    .option('--reason <text>', 'why, shown to others who conflict')
    .option('--wait <duration>', 'retry with backoff until granted or this long has passed')
    .action(async (patterns: string[], options: ReserveOptions) => emit(await runReserve(patterns, options)));
}

export async function runReserve(rawPatterns: string[], options: ReserveOptions): Promise<Reply> {
  const owner = await resolveOwner(options, process.env);
  const ttlMs = options.ttl !== undefined ? parseTtl(options.ttl) : DEFAULT_TTL_MS.file;
  const waitMs = options.wait !== undefined ? parseNonNegativeDuration(options.wait, '--wait', 86_400_000) : undefined;
  checkWorkLimit('patterns', rawPatterns.length); // before any file-system or database work
  const project = projectFor(options);
  const patterns = rawPatterns.map((pattern) => commandLinePattern(project, process.cwd(), pattern));
  return withContext(
    options,
    true,
    async (ctx) => {
      const input = { type: 'file' as const, patterns, owner, mode: options.shared ? ('shared' as const) : ('exclusive' as const), ttlMs, reason: options.reason ?? null };
      if (waitMs === undefined) return replyForOutcome(await reserveOnce(ctx, input), false);
      const { outcome, timedOut } = await reserveWaiting(ctx, waitMs, (attempt) => reserveOnce(ctx, input, attempt));
      return replyForOutcome(outcome, timedOut);
    },
    project,
  );
}

export function replyForOutcome(outcome: ReserveOutcome, timedOut: boolean): Reply {
  if (outcome.granted) {
    const locks = outcome.locks.map(viewLock);
    return success({ locks }, () => grantedText(locks));
  }
  if (outcome.busy && outcome.conflicts.length === 0) {
    // The wait ran out before the database ever answered: still "wait timed out", not BUSY (README, "Waiting").
    const error = new IcError('TIMEOUT', 'gave up waiting: the database stayed busy (another call held its write lock) for the whole wait', { conflicts: [], busy: true });
    return failure(error, {}, () => 'timed out waiting: the database stayed busy');
  }
  const conflicts = outcome.conflicts.map(viewConflict);
  const lines = outcome.conflicts.map((conflict) => describeConflict(conflict, outcome.now));
  const said = `${lines[0]}${lines.length > 1 ? ` (and ${lines.length - 1} more)` : ''}`;
  const error = timedOut ? new IcError('TIMEOUT', `gave up waiting: ${said}`, { conflicts, ...(outcome.busy ? { busy: true } : {}) }) : new IcError('CONFLICT', said, { conflicts });
  return failure(error, {}, () => `${timedOut ? 'timed out waiting' : 'not granted'}:\n${lines.map((line) => `  ${line}`).join('\n')}`);
}

// What a person needs after a grant: what, for whom, until when, and how to give it back.
function grantedText(locks: LockView[]): string {
  const lines = locks.map((lock) => {
    const what = lock.type === 'file' ? lock.pattern : `${lock.type === 'claim' ? 'claim' : 'lock'} ${JSON.stringify(lock.pattern)}`;
    return `granted: ${what} to ${shortOwner(lock.owner)}${lock.mode === 'shared' ? ' (shared)' : ''} until ${whenText(lock.expires_at)}  [id ${lock.id}, token ${lock.token}]`;
  });
  const first = locks[0]!;
  const byName = `coord ${first.type === 'claim' ? 'unclaim' : 'unlock'} ${shellQuote(first.pattern)}`;
  const release = first.type !== 'file' ? byName : locks.length === 1 ? `coord release ${first.id}` : 'coord release --all';
  return [...lines, `give it back with: ${release}${first.owner === process.env.IC_OWNER ? '' : ` --owner ${shellQuote(first.owner)}`}`].join('\n');
}
