import { sessionsOnHost, type SessionRow } from '../store/sessions';
import { readTransaction, type CoordContext } from './context';
import { activeClaims, markRequestsTold, untoldIn, untoldRequests, type OpenRequest } from './handoff';
import { prefetchLocks } from '../store/locks';
import { freshSession, hostToLookOver, recordActivity, releaseGoneClients, type Activity, type HostSessions } from './sessions';

export interface SteppedSession {
  /** The live owner (docs/sessions.md). */
  owner: string;
  /** Hand-off requests its model is now told of (marked told). */
  requests: OpenRequest[];
}

// The session step of an agent hook (src/hooks/liveness.ts): one read (one round trip on a server, the claims announced
// ahead) when nothing needs writing, as on most calls: this host's sessions (is any client gone?), this process's row
// (seen recently enough?), the hand-off requests its model was not told. Else the gone clients' release, the renewal.
// `holderOf`: for the requests, which owners count as the live owner's (its lineage); none asked without it.
export async function stepSession(ctx: CoordContext, activity: Activity, holderOf?: (live: string) => (owner: string) => boolean): Promise<SteppedSession> {
  const host = hostToLookOver(ctx);
  const seen = await readTransaction(ctx, async (now) => {
    if (holderOf) prefetchLocks(ctx.db, activeClaims(ctx, now)); // on a server: fetched with the sessions, one round trip
    const onHost: HostSessions | undefined = host === undefined ? undefined : { host, rows: await sessionsOnHost(ctx.db, host) };
    const row: SessionRow | undefined = await freshSession(ctx, activity, now, onHost);
    const requests = row && holderOf ? await untoldIn(ctx, row.told_until, holderOf(row.owner), now) : [];
    return { onHost, row, requests };
  });
  const released = seen.onHost === undefined ? 0 : await releaseGoneClients(ctx, seen.onHost.rows);
  if (seen.row !== undefined && released === 0) return { owner: seen.row.owner, requests: await markRequestsTold(ctx, seen.row.owner, seen.requests) };
  const live = await recordActivity(ctx, activity);
  return { owner: live.owner, requests: holderOf ? await untoldRequests(ctx, live.owner, holderOf(live.owner)) : [] };
}
