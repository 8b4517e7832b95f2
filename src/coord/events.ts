import { formatTime } from '../core/time';
import { advanceConsumer, consumerPosition, lockConsumer, cursorAfter, eventsAfterCursor, queryEvents, type EventCursor, type StoredEvent } from '../store/events';
import { isServerDb } from '../store/discover';
import { projectIdentity } from './project-key';
import { readTransaction, writeTransaction, type CoordContext } from './context';
import type { WriteScope } from '../store/connection';

const NO_SCOPE: WriteScope = { scopes: [] };

export interface EventView extends Omit<StoredEvent, 'created_at' | 'detail'> {
  created_at: string;
  detail: Record<string, unknown> | null;
}

export function viewEvent(event: StoredEvent): EventView {
  const { xact: _position, ...shown } = event as StoredEvent & { xact?: string }; // a reader's position, not part of the event
  return { ...shown, created_at: formatTime(event.created_at), detail: event.detail ? viewDetail(JSON.parse(event.detail) as Record<string, unknown>) : null };
}

// Stored times are epoch milliseconds; every time printed is RFC 3339 (docs/reference.md, "Output"), details included.
function viewDetail(detail: Record<string, unknown>): Record<string, unknown> {
  const view = { ...detail };
  for (const key of ['expired_at', 'expires_at', 'last_active']) if (typeof view[key] === 'number') view[key] = formatTime(view[key]);
  return view;
}

export interface EventsInput {
  afterId?: number;
  sinceMs?: number;
  limit: number;
  consumer?: string;
}

function sinceOf(input: EventsInput, now: number): number | undefined {
  return input.sinceMs !== undefined ? now - input.sinceMs : undefined;
}

/** On a server, the project whose events this call reads (a server holds many: store/events.ts, ofProject); undefined on a SQLite file. */
export function serverProject(ctx: Pick<CoordContext, 'dbLocation' | 'projectRoot' | 'git'>): string | undefined {
  return isServerDb(ctx.dbLocation) ? projectIdentity(ctx.projectRoot, ctx.git) : undefined;
}

// Reads events: a listing in id order; with a consumer, after its cursor (store/events.ts, EventCursor), and
// reading and advancing that cursor are one write transaction holding the consumer's lock (lockConsumer), so two
// readers never get the same event.
export async function readEvents(ctx: CoordContext, input: EventsInput): Promise<EventView[]> {
  const project = serverProject(ctx);
  if (input.consumer === undefined) {
    return readTransaction(ctx, async (now) => (await queryEvents(ctx.db, { afterId: input.afterId, since: sinceOf(input, now), limit: input.limit, project })).map(viewEvent));
  }
  // Each project on a server has its own cursor of a name (two projects' CI may both read `--consumer ci`); a
  // SQLite file is one repository's.
  const consumer = { project: project ?? '', name: input.consumer };
  // A consumer's cursor is no scope's: its read-and-advance locks only the consumer, so two readers of it take
  // turns while every other writer of the server goes on (a lock on everything made each read wait for every
  // project's writers, and stopped them all meanwhile).
  return writeTransaction(ctx, NO_SCOPE, async (now) => {
    await lockConsumer(ctx.db, consumer);
    const position = await consumerPosition(ctx.db, consumer);
    const floorId = Math.max(position.floorId, input.afterId ?? 0);
    const events = await eventsAfterCursor(ctx.db, position.cursor, { floorId, since: sinceOf(input, now), limit: input.limit, project });
    const last = events[events.length - 1];
    if (last) await advanceConsumer(ctx.db, consumer, last, now);
    return events.map(viewEvent);
  });
}

/** Where a follower stands: its cursor, and the id every event it prints is above (--since N, or the newest when tailing). */
export interface FollowPosition {
  cursor: EventCursor;
  floorId: number;
}

// One poll of `events --follow` without a consumer: the events after the follower's position, and its next
// position. In the order no later commit can precede (store/events.ts, EventCursor).
export async function followEvents(ctx: CoordContext, input: EventsInput, position: FollowPosition): Promise<{ events: EventView[]; position: FollowPosition }> {
  return readTransaction(ctx, async (now) => {
    const events = await eventsAfterCursor(ctx.db, position.cursor, { floorId: position.floorId, since: sinceOf(input, now), limit: input.limit, project: serverProject(ctx) });
    const last = events[events.length - 1];
    return { events: events.map(viewEvent), position: last ? { ...position, cursor: cursorAfter(last) } : position };
  });
}
