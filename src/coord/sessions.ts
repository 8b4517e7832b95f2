import { recordEvent } from '../store/events';
import { markSeen } from '../store/owners';
import {
  deleteSession,
  extendLineageLocks,
  extendLineageUntil,
  lineageLockEndsBefore,
  lineageFamilyScopes,
  prefetchLineageFamilyScopes,
  lineageLockIds,
  putSession,
  sessionByOwner,
  sessionOfProcess,
  sessionsOnHost,
  touchSession,
  type ClientProcess,
  type SessionRow,
} from '../store/sessions';
import { ancestors, clientState, thisMachine } from './client-process';
import { readTransaction, writeTransaction, type CoordContext } from './context';
import { release } from './release';

// Session truth (docs/sessions.md): which live agent an owner is, how its activity keeps its locks, and
// what happens when its client process is gone.

import { LIVENESS_WRITE_MS, SHELL_GRACE_MS } from './liveness-times';
import { mapInOrder } from '../core/in-order';

export interface Activity {
  /** The owner the payload names: `claude-<session>`, `codex-<session>` or Codex's $IC_OWNER. */
  base: string;
  agent: string;
  /** The client process that ran the hook; undefined where /proc is missing. */
  client: ClientProcess | undefined;
  /** A shell command is about to run with this timeout: the session's locks must outlast it. */
  shellTimeoutMs?: number;
}

export interface Liveness {
  /** The live owner: `base`, or `base~<pid>` when another live process already runs as `base`. */
  owner: string;
  renewed: number;
  wrote: boolean;
}

// Every agent hook: find (or register) the live owner of the session and renew its locks and claims.
// Reads only, unless the owner was not seen for LIVENESS_WRITE_MS, is new, or a shell command needs cover.
export async function recordActivity(ctx: CoordContext, activity: Activity): Promise<Liveness> {
  const seen = await readTransaction(ctx, async (now) => {
    prefetchLineageFamilyScopes(ctx.db, activity.base, now); // on a server: fetched with the session, one round trip
    return { known: (await freshSession(ctx, activity, now))?.owner, scopes: await lineageFamilyScopes(ctx.db, activity.base, now) };
  });
  if (seen.known !== undefined) return { owner: seen.known, renewed: 0, wrote: false };
  // The scopes the lineage's locks lie in (read above) and the session's name: never the whole database, so
  // agents of other projects do not wait for this (docs/design/postgres.md, "Writes that cross scopes"). A
  // lock granted since that read is fresh; it is renewed by the next step.
  const scopes = [...new Set([ctx.scope, ...seen.scopes])];
  return writeTransaction(ctx, { scopes, owners: [activity.base] }, async (now) => {
    const owner = await liveOwnerFor(ctx, activity, now);
    let renewed = await extendLineageLocks(ctx.db, owner, now, scopes);
    let until: number | undefined;
    if (activity.shellTimeoutMs !== undefined) {
      until = now + activity.shellTimeoutMs + SHELL_GRACE_MS;
      renewed += await extendLineageUntil(ctx.db, owner, now, until, scopes);
    }
    await markSeen(ctx.db, owner, now);
    const detail = { renewed, interval_ms: LIVENESS_WRITE_MS, ...(until !== undefined ? { until, shell_timeout_ms: activity.shellTimeoutMs } : {}) };
    await recordEvent(ctx.db, { type: 'heartbeat', lock_id: null, scope: ctx.scope, owner, pattern: null, reason: until !== undefined ? 'shell command' : 'agent activity', created_at: now, detail });
    return { owner, renewed, wrote: true };
  });
}

// Inside a read: the activity's session when it was seen recently enough that nothing needs writing (its
// locks need no renewal, and a shell command's timeout is covered). `onHost`: this host's sessions, read in
// the same transaction (the session step's one read), which hold the row of a client on this host.
export async function freshSession(ctx: CoordContext, activity: Activity, now: number, onHost?: HostSessions): Promise<SessionRow | undefined> {
  const client = activity.client;
  const row = !client
    ? await sessionByOwner(ctx.db, activity.base)
    : client.host === onHost?.host
      ? processRowIn(onHost.rows, client, activity.base)
      : await sessionOfProcess(ctx.db, client, activity.base);
  if (!row || now - row.last_seen >= LIVENESS_WRITE_MS) return undefined;
  if (activity.shellTimeoutMs === undefined) return row;
  // A shell command needs a write only when one of the session's locks would lapse before it may end.
  return (await lineageLockEndsBefore(ctx.db, row.owner, now, now + activity.shellTimeoutMs + SHELL_GRACE_MS)) ? undefined : row;
}

export interface HostSessions {
  host: string;
  rows: SessionRow[];
}

// What sessionOfProcess answers, from rows of the client's host already read.
function processRowIn(rows: readonly SessionRow[], client: ClientProcess, base: string): SessionRow | undefined {
  return rows
    .filter((row) => row.pid === client.pid && row.start === client.start)
    .sort((a, b) => b.last_seen - a.last_seen)
    .find((row) => row.boot === client.boot && row.base === base);
}

// Inside the write: the row of this very process, else `base` when no other live process runs as it,
// else `base~<pid>`. Two concurrent sessions never share an owner, whatever IC_OWNER or a resume says.
async function liveOwnerFor(ctx: CoordContext, activity: Activity, now: number): Promise<string> {
  const client = activity.client;
  if (!client) return activity.base;
  const mine = await sessionOfProcess(ctx.db, client, activity.base);
  if (mine) {
    await touchSession(ctx.db, mine.owner, now);
    return mine.owner;
  }
  const holder = await sessionByOwner(ctx.db, activity.base);
  const taken = holder !== undefined && isLive(holder, now);
  const owner = taken ? `${activity.base}~${client.pid}` : activity.base;
  await putSession(ctx.db, { owner, base: activity.base, agent: activity.agent, ...client, created_at: now, last_seen: now });
  return owner;
}

// Another host's process cannot be looked at: it counts as live while it showed activity within a lock TTL.
function isLive(row: ClientProcess & { last_seen: number }, now: number): boolean {
  const state = clientState(row);
  return state === 'alive' || (state === 'unknown' && now - row.last_seen < 15 * 60_000);
}

const reaped = new Set<string>();

// Releases the locks and claims of sessions whose client process on this host is gone (killed, crashed):
// at the next ic call instead of at their TTL. Once per database per process; reads only when none died.
export async function releaseDeadClients(ctx: CoordContext): Promise<number> {
  const host = hostToLookOver(ctx);
  if (host === undefined) return 0;
  const onHost = await readTransaction(ctx, async () => sessionsOnHost(ctx.db, host));
  return releaseGoneClients(ctx, onHost);
}

// This host, when this process has not yet looked over its sessions in this database (once per database
// per process), and marks it looked over; undefined otherwise or where the host cannot be known.
export function hostToLookOver(ctx: CoordContext): string | undefined {
  const here = thisMachine();
  if (!here || ctx.dbMissing || reaped.has(ctx.dbLocation.path)) return undefined;
  reaped.add(ctx.dbLocation.path);
  return here.host;
}

// Releases the locks of those of this host's sessions whose client process is gone, and forgets them.
// Writes only when one is.
export async function releaseGoneClients(ctx: CoordContext, onHost: readonly SessionRow[]): Promise<number> {
  const dead = onHost.filter((row) => clientState(row) === 'gone');
  if (dead.length === 0) return 0;
  // The scopes of their locks and their names, not the whole database (as recordActivity).
  const scopes = await readTransaction(ctx, async (now) => (await mapInOrder(dead, (row) => lineageLockIds(ctx.db, row.owner, now))).flat().map((lock) => lock.scope));
  return writeTransaction(ctx, { scopes, owners: dead.map((row) => baseOf(row.owner)) }, async (now) => {
    let released = 0;
    for (const row of dead) {
      const byOwner = new Map<string, string[]>();
      const locks = await lineageLockIds(ctx.db, row.owner, now);
      for (const lock of locks) if (scopes.includes(lock.scope)) byOwner.set(lock.owner, [...(byOwner.get(lock.owner) ?? []), lock.id]);
      for (const [owner, ids] of byOwner) {
        released += (await release(ctx, { ids, owner, all: false, force: false, reason: `the client process (pid ${row.pid}) of ${row.owner} ended`, releaseReason: 'client_gone' })).released.length;
      }
      // A lock taken since the read above (in a scope this write does not hold) keeps the row for the next call.
      if (locks.every((lock) => scopes.includes(lock.scope))) await deleteSession(ctx.db, row.owner);
    }
    return released;
  });
}

// The session a command run from an agent's shell belongs to: the nearest ancestor process registered by
// an agent hook. Undefined outside agents (a person's terminal, CI), where /proc is missing, and in a
// database from before sessions were recorded.
export async function sessionOfShell(ctx: CoordContext): Promise<SessionRow | undefined> {
  if (ctx.dbMissing) return undefined;
  const chain = ancestors();
  if (chain.length === 0) return undefined;
  try {
    return await readTransaction(ctx, async () => {
      for (const process of chain) {
        const row = await sessionOfProcess(ctx.db, process);
        if (row) return row;
      }
      return undefined;
    });
  } catch {
    return undefined; // no sessions table yet (an older schema, read without migrating)
  }
}

/** Who a command acts as without --owner, and why (`ic whoami`). */
export interface ActingOwner {
  owner: string | undefined;
  source: 'session' | 'env' | 'none';
  /** The agent session found through the parent processes, also when $IC_OWNER names someone else. */
  session?: SessionRow;
}

// Who a command acts as when no --owner is given: the live session it runs in, when $IC_OWNER is unset or
// names that very session (Claude's exported owner, Codex's inherited IC_OWNER); else $IC_OWNER.
// So a second session sharing one IC_OWNER acts as itself, and an explicit other name stays explicit.
export async function explainActingOwner(ctx: CoordContext, envOwner: string | undefined): Promise<ActingOwner> {
  const session = await sessionOfShell(ctx);
  if (session && (!envOwner || envOwner === session.base || envOwner === session.owner)) return { owner: session.owner, source: 'session', session };
  if (envOwner) return { owner: envOwner, source: 'env', ...(session ? { session } : {}) };
  return { owner: undefined, source: 'none' };
}

// SessionEnd: the ended session no longer lends its identity to the processes it leaves behind (a shell it
// started, the terminal a hook was run from by hand). Its row goes: the one of the client process that ran
// the end hook, else the row of that owner. Nothing is created when there is no database.
export async function forgetSession(ctx: CoordContext, owner: string, client: ClientProcess | undefined): Promise<boolean> {
  if (ctx.dbMissing) return false;
  const base = baseOf(owner);
  const row = await readTransaction(ctx, async () => (client ? await sessionOfProcess(ctx.db, client, base) : undefined) ?? (await sessionByOwner(ctx.db, owner)));
  if (!row) return false;
  await writeTransaction(ctx, { scopes: [], owners: [base] }, async () => deleteSession(ctx.db, row.owner));
  return true;
}

// The session name an owner runs as: `base~<pid>` → `base` (recordActivity's writes are serialised on it).
function baseOf(owner: string): string {
  return owner.replace(/~\d+$/, '');
}
