import { Command } from 'commander';
import { IcError } from '../../core/errors';
import { formatTime, parseNonNegativeDuration, parseTtl } from '../../core/time';
import { DEFAULT_TTL_MS, viewLock } from '../../core/lock';
import { dropName, takeName, type NameType } from '../../coord/named';
import { askHandoff, claimState, takeOver } from '../../coord/handoff';
import { checkText, validateName } from '../../core/names';
import { reserveWaiting, type ReserveOutcome } from '../../coord/reserve';
import { ownerOption, resolveOwner, commonCommand, withContext, type CommonOptions } from '../common';
import { failure, success, type Reply } from '../reply';
import { lockTable } from '../render';
import { runCommandUnderLock, type RunOptions } from './lock-run';
import { replyForOutcome } from './reserve';

interface TakeOptions extends CommonOptions {
  ttl?: string;
  wait?: string | false;
  reason?: string;
  take?: boolean;
  /** `--ask` alone (true), or `--ask MESSAGE`. */
  ask?: boolean | string;
}

export const MAX_ASK_CHARS = 500;

// The words of `--ask MESSAGE` (else --reason): the text rule (so one line), at most MAX_ASK_CHARS characters.
function askMessage(options: TakeOptions): string | null {
  const raw = typeof options.ask === 'string' ? options.ask : options.reason;
  if (raw === undefined) return null;
  const text = checkText(raw.trim(), '--ask MESSAGE');
  if ([...text].length > MAX_ASK_CHARS) throw new IcError('INVALID_INPUT', `--ask MESSAGE may be at most ${MAX_ASK_CHARS} characters`, { hint: 'Try: say what you need in a sentence or two' });
  return text === '' ? null : text;
}

const NOUN: Record<NameType, string> = { named: 'lock', claim: 'claim' };

export function lockCommand(emit: (reply: Reply) => void): Command {
  return commonCommand('lock', 'take a named lock (e.g. a repo-wide test mutex); with `-- CMD`, hold it while CMD runs')
    .argument('<name>', 'lock name')
    .argument('[command...]', 'command to run under the lock (after --)')
    .addOption(ownerOption())
    .option('--ttl <duration>', 'time to live (default 5m); with CMD, the lease renewed while it runs (default 15s, at least 5s)')
    .option('-w, --wait <duration>', 'wait up to this long for the lock (with CMD the default is to wait as long as it takes)')
    .option('-n, --no-wait', 'with CMD: do not wait; give up at once if the lock is held')
    .option('-E, --conflict-exit-code <code>', 'with CMD: exit code when the lock could not be had or was lost (default 75)')
    .option('--reason <text>', 'why, shown to others who wait (with CMD, default: the command)')
    .action(async (name: string, command: string[], options: TakeOptions & RunOptions) => {
      if (command.length === 0) return emit(await take('named', name, options));
      // Without `--`, `lock NAME --ttl 10m minutes` would run a command named `minutes`.
      if (!process.argv.includes('--')) throw new IcError('USAGE', `put -- before the command: coord lock ${name} -- ${command.join(' ')}`, { hint: 'Try: coord lock tests -- npm test' });
      return runCommandUnderLock(name, command, options, emit);
    });
}

export function claimCommand(emit: (reply: Reply) => void): Command {
  return commonCommand('claim', 'claim a work item (exclusive, 30m default TTL, kept alive by heartbeat)')
    .argument('<item>', 'work item name, e.g. an issue number')
    .addOption(ownerOption())
    .option('--ttl <duration>', 'time to live (default 30m)')
    .option('--wait <duration>', 'wait up to this long for the claim')
    .option('--reason <text>', 'what you are doing with it, shown to others who try to claim it')
    .option('--take', 'take over a stalled claim (its owner inactive for the repository setting stall-after, default 60m: ic config); recorded as taken_over')
    .option('--ask [message]', "ask the holder to hand the claim over; MESSAGE reaches the holder's model with its next hook (once; a repeat in the same words is not sent again)")
    .action(async (item: string, options: TakeOptions) => emit(options.take || options.ask ? await takeOrAsk(item, options) : await take('claim', item, options)));
}

export function unlockCommand(emit: (reply: Reply) => void): Command {
  return dropCommand('unlock', 'named', 'release a named lock', emit);
}

export function unclaimCommand(emit: (reply: Reply) => void): Command {
  return dropCommand('unclaim', 'claim', 'give up a claim', emit);
}

function dropCommand(commandName: string, type: NameType, description: string, emit: (reply: Reply) => void): Command {
  return commonCommand(commandName, description)
    .argument('<name>', type === 'named' ? 'lock name' : 'work item')
    .addOption(ownerOption())
    .option('--force', "release another owner's (recorded as force_released)")
    .option('--reason <text>', 'why, kept in the events')
    .action(async (name: string, options: CommonOptions & { force?: boolean; reason?: string }) => emit(await drop(type, name, options)));
}

async function takeOnce(type: NameType, name: string, options: TakeOptions): Promise<{ outcome: ReserveOutcome; timedOut: boolean }> {
  const owner = await resolveOwner(options, process.env);
  const ttlMs = options.ttl !== undefined ? parseTtl(options.ttl) : DEFAULT_TTL_MS[type];
  const waitMs = typeof options.wait === 'string' ? parseNonNegativeDuration(options.wait, '--wait', 86_400_000) : undefined;
  const validName = validateName(name, NOUN[type] === 'lock' ? 'lock name' : 'claim item');
  return withContext(options, true, async (ctx) => {
    const input = { type, name: validName, owner, ttlMs, reason: options.reason ?? null };
    if (waitMs === undefined) return { outcome: await takeName(ctx, input), timedOut: false };
    return reserveWaiting(ctx, waitMs, (attempt) => takeName(ctx, input, attempt));
  });
}

async function take(type: NameType, name: string, options: TakeOptions): Promise<Reply> {
  const { outcome, timedOut } = await takeOnce(type, name, options);
  if (outcome.granted || type !== 'claim' || outcome.conflicts.length === 0) return replyForOutcome(outcome, timedOut);
  const held = outcome.conflicts[0]!.held;
  const state = await withContext(options, false, (ctx) => claimState(ctx, held.pattern));
  const advice = state?.stalled ? `; stalled (no activity since ${formatTime(state.last_active)}): take it over with --take` : '; ask for it with --ask';
  const base = replyForOutcome(outcome, timedOut);
  const error = base.json.error as Record<string, unknown>;
  const message = `${String(error.message)}${advice}`;
  const stalled = state ? { stalled: state.stalled, last_active: formatTime(state.last_active) } : {};
  return { ...base, json: { ...base.json, error: { ...error, message, ...stalled } }, human: () => message };
}

// `claim ITEM --take` / `--ask`: over a stalled claim, or a request to its holder; a free item (or one the
// owner holds already) is simply claimed.
async function takeOrAsk(item: string, options: TakeOptions): Promise<Reply> {
  if (options.take && options.ask) throw new IcError('USAGE', '--take and --ask exclude each other', { hint: 'Try: coord claim ITEM --ask, and --take once the claim is stalled' });
  const owner = await resolveOwner(options, process.env);
  const ttlMs = options.ttl !== undefined ? parseTtl(options.ttl) : DEFAULT_TTL_MS.claim;
  const validItem = validateName(item, 'claim item');
  const reason = options.ask !== undefined && options.ask !== false ? askMessage(options) : (options.reason ?? null);
  const done = await withContext(options, true, async (ctx): Promise<Reply | undefined> => {
    if (options.take) {
      const taken = await takeOver(ctx, { item: validItem, owner, ttlMs, reason });
      if (!taken) return undefined;
      const claim = viewLock(taken.claim);
      return success({ locks: [claim], taken_over_from: taken.previous_owner }, () => `took over ${validItem} from ${taken.previous_owner} (stalled)`);
    }
    const asked = await askHandoff(ctx, { item: validItem, owner, reason });
    if (!asked) return undefined;
    const held = viewLock(asked.claim);
    const request = { item: validItem, holder: asked.claim.owner, message: reason, repeated: asked.repeated === true };
    const json = { granted: false, handoff_requested: request, held, stalled: asked.stalled, last_active: formatTime(asked.last_active) };
    const said = asked.repeated ? `already asked ${asked.claim.owner} for ${validItem} in these words` : `asked ${asked.claim.owner} to hand over ${validItem}`;
    return success(json, () => `${said}${asked.stalled ? ' (it is stalled: --take would take it now)' : ''}`);
  });
  return done ?? (await take('claim', item, { ...options, take: false, ask: false }));
}

async function drop(type: NameType, name: string, options: CommonOptions & { force?: boolean; reason?: string }): Promise<Reply> {
  const owner = await resolveOwner(options, process.env); // even --force names who did it
  return withContext(options, true, async (ctx) => {
    const result = await dropName(ctx, { type, name: validateName(name, 'name'), owner, force: Boolean(options.force), reason: options.reason ?? null });
    const released = result.released.map(viewLock);
    if (released.length > 0) return success({ released, not_released: [] }, () => lockTable(released));
    const hint = `see who holds what: coord who${options.force ? '' : ` (another owner's ${NOUN[type]}: add --force)`}`;
    return failure(new IcError('NOT_HELD', `${owner} does not hold a ${NOUN[type]} named "${name}"; ${hint}`), { released, not_released: [] });
  });
}
