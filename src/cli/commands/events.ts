import { Command } from 'commander';
import { IcError } from '../../core/errors';
import { parseNonNegativeDuration } from '../../core/time';
import { followEvents, readEvents, type EventsInput, type EventView, type FollowPosition } from '../../coord/events';
import { LOG_START } from '../../store/events';
import { validateName } from '../../core/names';
import { openContext, commonCommand, withContext, type CommonOptions } from '../common';
import { failure, success, toIcError, type Reply } from '../reply';
import { currentOutput } from '../format';
import { readTransaction, type CoordContext } from '../../coord/context';
import { lastEventId as newestEventIdOrZero } from '../../store/changes';
import { clockTime, escapeControls, lockKey, paint, shortOwner, table, type SafeText, type Style } from '../render';

interface EventsOptions extends CommonOptions {
  since?: string;
  consumer?: string;
  limit?: string;
  follow?: boolean;
}

export function eventsCommand(emit: (reply: Reply) => void): Command {
  return commonCommand('events', 'the event log: reserved, renewed, released, force_released, expired, transferred, conflict, waited')
    .option('--since <id|duration>', 'events after this event ID, or within this long (e.g. 10m)')
    .option('--consumer <name>', "only events after this consumer's cursor, and advance it")
    .option('--limit <n>', 'at most this many events (default 100, at most 10000)')
    .option('--follow', 'keep polling until interrupted, from now on (--since first replays what came before): one JSON object per line, or on a terminal one row per event')
    .action((options: EventsOptions) => runEvents(options, emit));
}

export function parseEventsInput(options: EventsOptions): EventsInput {
  const input: EventsInput = { limit: 100 };
  if (options.limit !== undefined) {
    if (!/^\d+$/.test(options.limit) || Number(options.limit) < 1 || Number(options.limit) > 10_000) {
      throw new IcError('INVALID_INPUT', `--limit must be a whole number from 1 to 10000, got "${options.limit}"`);
    }
    input.limit = Number(options.limit);
  }
  if (options.since !== undefined) {
    if (/^\d+$/.test(options.since)) input.afterId = Number(options.since);
    else input.sinceMs = parseNonNegativeDuration(options.since, '--since');
  }
  if (options.consumer !== undefined) input.consumer = validateName(options.consumer, '--consumer');
  return input;
}

async function runEvents(options: EventsOptions, emit: (reply: Reply) => void): Promise<void> {
  const input = parseEventsInput(options);
  if (options.follow) {
    return follow(options, input).catch((error: unknown) => emit(failure(toIcError(error))));
  }
  emit(await runEventsOnce(options, input));
}

// A person at a terminal reads the log like `tail`: with no --since and no consumer, the last --limit
// events (still newest last). JSON on a pipe keeps reading from the start. --follow starts at now either way.
function tailing(input: EventsInput): boolean {
  return currentOutput().format === 'table' && input.afterId === undefined && input.sinceMs === undefined && input.consumer === undefined;
}

async function lastEventId(ctx: CoordContext): Promise<number> {
  return readTransaction(ctx, async () => newestEventIdOrZero(ctx.db));
}

async function runEventsOnce(options: EventsOptions, input: EventsInput): Promise<Reply> {
  return withContext(options, input.consumer !== undefined, async (ctx) => {
    const from = tailing(input) ? { ...input, afterId: Math.max(0, (await lastEventId(ctx)) - input.limit) } : input;
    const events = await readEvents(ctx, from);
    return success({ events }, () => eventTable(events));
  });
}

const EVENT_STYLE: Record<string, Style> = { conflict: 'red', force_released: 'red', reserved: 'green', expired: 'yellow', waited: 'yellow' };
const EVENT_HEADERS = ['ID', 'TIME', 'TYPE', 'OWNER', 'LOCK', 'PATTERN', 'REASON'];

// A conflict row says whose lock stood in the way (and on what, when that differs from what was asked).
function eventReason(e: EventView): string {
  const detail = (e.detail ?? {}) as { held_owner?: unknown; held_pattern?: unknown };
  if (e.type !== 'conflict' || typeof detail.held_owner !== 'string') return e.reason ?? '-';
  const on = typeof detail.held_pattern === 'string' && detail.held_pattern !== e.pattern ? ` on ${detail.held_pattern}` : '';
  return `held by ${shortOwner(detail.held_owner)}${on}${e.reason ? `; ${e.reason}` : ''}`;
}

function eventRow(e: EventView): string[] {
  return [String(e.id), clockTime(e.created_at), e.type, shortOwner(e.owner), e.lock_id ?? '-', e.pattern === null || e.pattern === undefined ? '-' : lockKey(e.lock_type, e.pattern), eventReason(e)];
}

function eventTable(events: EventView[]): SafeText | string {
  if (events.length === 0) return 'no events';
  return table(EVENT_HEADERS, events.map(eventRow), (i) => EVENT_STYLE[events[i]!.type]);
}

// Rows printed as they come cannot be aligned on the widest cell: fixed widths instead.
const FOLLOW_WIDTHS = [6, 8, 14, 24, 8, 30];
function followLine(cells: string[]): string {
  return cells
    .map((cell, i) => (i < FOLLOW_WIDTHS.length ? cell.padEnd(FOLLOW_WIDTHS[i]!) : cell))
    .join('  ')
    .trimEnd();
}

// Polls until SIGINT/SIGTERM, one JSON line (or table row) per event; with a consumer, its cursor moves past what was printed.
async function follow(options: EventsOptions, input: EventsInput): Promise<void> {
  // Opened as a writer: a follower started before the first write must watch the real file, not an empty stand-in.
  const ctx = await openContext(options, true);
  const pollMs = Number(process.env.IC_POLL_MS ?? 500);
  const asTable = currentOutput().format === 'table';
  // Without a consumer the follower keeps its own cursor: above --since N, from --since D ago, else above the
  // newest event (like `tail -f`: a follower wants what happens next, not the whole history first).
  const fromNow = input.afterId === undefined && input.sinceMs === undefined && input.consumer === undefined;
  let position: FollowPosition = { cursor: LOG_START, floorId: (fromNow ? await lastEventId(ctx) : input.afterId) ?? 0 };
  let sinceMs = input.sinceMs;
  if (asTable) process.stdout.write(`${paint(followLine(EVENT_HEADERS), 'bold')}\n`);
  // One poll at a time; an interrupt during a poll ends the follow when that poll is over (the connection is
  // closed only then), and a failed poll ends it with the error.
  return new Promise<void>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    let polling = false;
    let stopped = false;
    const end = (error?: unknown) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      ctx.db.close();
      if (error === undefined) resolve();
      else reject(error);
    };
    const stop = () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      if (!polling) end();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    const poll = async () => {
      polling = true;
      let events: EventView[];
      try {
        if (input.consumer !== undefined) events = await readEvents(ctx, { ...input, sinceMs });
        else ({ events, position } = await followEvents(ctx, { ...input, sinceMs }, position));
      } catch (error) {
        polling = false;
        return end(stopped ? undefined : error);
      }
      polling = false;
      for (const event of events) {
        const line = asTable ? paint(followLine(eventRow(event).map(escapeControls)), EVENT_STYLE[event.type]) : JSON.stringify(event);
        process.stdout.write(`${line}\n`);
      }
      sinceMs = undefined;
      if (stopped) return end();
      timer = setTimeout(() => void poll(), events.length < input.limit ? pollMs : 0);
    };
    void poll();
  });
}
