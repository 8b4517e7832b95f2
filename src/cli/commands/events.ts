import { Command } from 'commander';
import { IcError } from '../../core/errors';
import { parseNonNegativeDuration } from '../../core/duration';
import { readEvents, type EventsInput, type EventView } from '../../coord/events';
import { validateName } from '../../core/names';
import { openContext, withCommonOptions, withContext, type CommonOptions } from '../common';
import { failure, success, toIcError, type Reply } from '../reply';
import { table } from '../render';

interface EventsOptions extends CommonOptions {
  since?: string;
  consumer?: string;
  limit?: string;
  follow?: boolean;
}

export function eventsCommand(emit: (reply: Reply) => void): Command {
  return withCommonOptions(new Command('events'))
    .description('the event log: reserved, renewed, released, force_released, expired, transferred, conflict, waited')
    .option('--since <id|duration>', 'events after this event ID, or within this long (e.g. 10m)')
    .option('--consumer <name>', "only events after this consumer's cursor, and advance it")
    .option('--limit <n>', 'at most this many events (default 100, at most 10000)')
    .option('--follow', 'keep polling; print one JSON object per line until interrupted')
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

function runEvents(options: EventsOptions, emit: (reply: Reply) => void): Promise<void> | void {
  const input = parseEventsInput(options);
  if (options.follow) {
    return follow(options, input).catch((error: unknown) => emit(failure(toIcError(error))));
  }
  emit(runEventsOnce(options, input));
}

function runEventsOnce(options: EventsOptions, input: EventsInput): Reply {
  return withContext(options, input.consumer !== undefined, (ctx) => {
    const events = readEvents(ctx, input);
    return success({ events }, () => eventTable(events));
  });
}

function eventTable(events: EventView[]): string {
  if (events.length === 0) return 'no events';
  return table(['ID', 'TIME', 'TYPE', 'OWNER', 'LOCK', 'PATTERN'], events.map((e) => [String(e.id), e.created_at, e.type, e.owner, e.lock_id ?? '-', e.pattern ?? '-']));
}

// Polls until SIGINT/SIGTERM, one JSON line per event; with a consumer, its cursor moves past what was printed.
function follow(options: EventsOptions, input: EventsInput): Promise<void> {
  // Opened as a writer: a follower started before the first write must watch the real file, not an empty stand-in.
  const ctx = openContext(options, true);
  const pollMs = Number(process.env.IC_POLL_MS ?? 500);
  let afterId = input.afterId;
  let sinceMs = input.sinceMs;
  return new Promise<void>((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const stop = () => {
      if (timer) clearTimeout(timer);
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      ctx.db.close();
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    const poll = () => {
      const events = readEvents(ctx, { ...input, afterId, sinceMs });
      for (const event of events) process.stdout.write(`${JSON.stringify(event)}\n`);
      const last = events[events.length - 1];
      if (last) afterId = last.id;
      sinceMs = undefined;
      timer = setTimeout(poll, events.length < input.limit ? pollMs : 0);
    };
    poll();
  });
}
