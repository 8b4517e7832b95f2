import { Command } from 'commander';
import { IcError } from '../../core/errors';
import { parseNonNegativeDuration, parseTtl } from '../../core/duration';
import { DEFAULT_TTL_MS, viewLock } from '../../core/lock';
import { dropName, takeName, type NameType } from '../../coord/named';
import { validateName } from '../../core/names';
import { reserveWaiting, type ReserveOutcome } from '../../coord/reserve';
import { ownerOption, resolveOwner, withCommonOptions, withContext, type CommonOptions } from '../common';
import { failure, success, type Reply } from '../reply';
import { lockTable } from '../render';
import { runCommandUnderLock, type RunOptions } from './lock-run';
import { replyForOutcome } from './reserve';

interface TakeOptions extends CommonOptions {
  ttl?: string;
  wait?: string | false;
  reason?: string;
}

const NOUN: Record<NameType, string> = { named: 'lock', claim: 'claim' };

export function lockCommand(emit: (reply: Reply) => void): Command {
  return withCommonOptions(new Command('lock'))
    .description('take a named lock (e.g. a repo-wide test mutex); with `-- CMD`, hold it while CMD runs')
    .argument('<name>', 'lock name')
    .argument('[command...]', 'command to run under the lock (after --)')
    .addOption(ownerOption())
    .option('--ttl <duration>', 'time to live (default 5m); with CMD, the lease renewed while it runs (default 15s, at least 5s)')
    .option('-w, --wait <duration>', 'wait up to this long for the lock (with CMD the default is to wait as long as it takes)')
    .option('-n, --no-wait', 'with CMD: do not wait; give up at once if the lock is held')
    .option('-E, --conflict-exit-code <code>', 'with CMD: exit code when the lock could not be had or was lost (default 75)')
    .option('--reason <text>', 'why, shown to others who wait (with CMD, default: the command)')
    .action((name: string, command: string[], options: TakeOptions & RunOptions) => {
      if (command.length === 0) return emit(take('named', name, options));
      // Without `--`, `lock NAME --ttl 10m minutes` would run a command named `minutes`.
      if (!process.argv.includes('--')) throw new IcError('USAGE', `put -- before the command: coord lock ${name} -- ${command.join(' ')}`, { hint: 'Try: coord lock tests -- npm test' });
      return runCommandUnderLock(name, command, options, emit);
    });
}

export function claimCommand(emit: (reply: Reply) => void): Command {
  return withCommonOptions(new Command('claim'))
    .description('claim a work item (exclusive, 30m default TTL, kept alive by heartbeat)')
    .argument('<item>', 'work item name, e.g. an issue number')
    .addOption(ownerOption())
    .option('--ttl <duration>', 'time to live (default 30m)')
    .option('--wait <duration>', 'wait up to this long for the claim')
    .option('--reason <text>', 'what you are doing with it, shown to others who try to claim it')
    .action((item: string, options: TakeOptions) => emit(take('claim', item, options)));
}

export function unlockCommand(emit: (reply: Reply) => void): Command {
  return dropCommand('unlock', 'named', 'release a named lock', emit);
}

export function unclaimCommand(emit: (reply: Reply) => void): Command {
  return dropCommand('unclaim', 'claim', 'give up a claim', emit);
}

function dropCommand(commandName: string, type: NameType, description: string, emit: (reply: Reply) => void): Command {
  return withCommonOptions(new Command(commandName))
    .description(description)
    .argument('<name>', type === 'named' ? 'lock name' : 'work item')
    .addOption(ownerOption())
    .option('--force', "release another owner's (recorded as force_released)")
    .option('--reason <text>', 'why, kept in the events')
    .action((name: string, options: CommonOptions & { force?: boolean; reason?: string }) => emit(drop(type, name, options)));
}

function takeOnce(type: NameType, name: string, options: TakeOptions): { outcome: ReserveOutcome; timedOut: boolean } {
  const owner = resolveOwner(options, process.env);
  const ttlMs = options.ttl !== undefined ? parseTtl(options.ttl) : DEFAULT_TTL_MS[type];
  const waitMs = typeof options.wait === 'string' ? parseNonNegativeDuration(options.wait, '--wait', 86_400_000) : undefined;
  const validName = validateName(name, NOUN[type] === 'lock' ? 'lock name' : 'claim item');
  return withContext(options, true, (ctx) => {
    const input = { type, name: validName, owner, ttlMs, reason: options.reason ?? null };
    if (waitMs === undefined) return { outcome: takeName(ctx, input), timedOut: false };
    return reserveWaiting(ctx, waitMs, (attempt) => takeName(ctx, input, attempt));
  });
}

function take(type: NameType, name: string, options: TakeOptions): Reply {
  const { outcome, timedOut } = takeOnce(type, name, options);
  return replyForOutcome(outcome, timedOut);
}

function drop(type: NameType, name: string, options: CommonOptions & { force?: boolean; reason?: string }): Reply {
  const owner = resolveOwner(options, process.env); // even --force names who did it
  return withContext(options, true, (ctx) => {
    const result = dropName(ctx, { type, name: validateName(name, 'name'), owner, force: Boolean(options.force), reason: options.reason ?? null });
    const released = result.released.map(viewLock);
    if (released.length > 0) return success({ released, not_released: [] }, () => lockTable(released));
    const hint = `see who holds what: coord who${options.force ? '' : ` (another owner's ${NOUN[type]}: add --force)`}`;
    return failure(new IcError('NOT_HELD', `${owner} does not hold a ${NOUN[type]} named "${name}"; ${hint}`), { released, not_released: [] });
  });
}
