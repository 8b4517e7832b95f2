import { countEventsBefore, newestEventId, purgeEvents } from '../store/events';
import { countReleasedBefore, getLock, listLocks, purgeReleased } from '../store/locks';
import { readTransaction, type CoordContext } from './context';
import { EVERYTHING } from '../store/connection';
import { inChunks, repeatInChunks } from './chunks';
import { expireLock } from './reserve';
import { allLastActivity } from '../store/activity';
import { indexDirOf, sweepIndexFiles } from './private-index';
import { recordedBlobs } from '../store/custody';
import { isServerDb } from '../store/discover';
import { listMarkers } from '../store/markers';
import { join } from 'node:path';
import { dropPins, expiredPins, listPins, RETENTION_MS } from '../store/git/keep';
import { removeStale } from '../store/stale-files';
import { sweepServerBlobs } from '../store/postgres/custody-blobs';
import type { PgConnection } from '../store/postgres/pg-connection';

export interface SweepResult {
  expired: number;
  purged_locks: number;
  purged_events: number;
  /** Private staging areas (git index files) of sessions idle for 24 h, deleted (README, "Private staging areas"). */
  index_files: number;
  dry_run: boolean;
  /** Custody's kept contents (refs/ic/custody/) past their 14 days and needed by no live record: deleted. */
  dropped_pins: number;
  /** Custody's kept contents still within their 14 days, or still needed. */
  kept_pins: number;
  /** Directories of files custody moved aside (<git common dir>/ic/displaced/<time>/) past the same 14 days, deleted. */
  displaced_dirs: number;
}

// Needs no owner (core/authority.ts): it changes only what time has already ended.
// Marks lapsed locks expired (one event each, however many sweeps race: the UPDATE only takes unreleased
// rows) and, with olderThanMs, deletes released locks and events older than that. Every step runs in
// chunks (coord/chunks.ts), so a sweep of 100,000 locks never holds the write lock for long; a dry run
// only reads, and counts what the real run would do from one snapshot.
export async function sweep(ctx: CoordContext, input: { olderThanMs?: number; dryRun: boolean }): Promise<SweepResult> {
  if (input.dryRun) return dryRun(ctx, input.olderThanMs);
  const lapsed = await readTransaction(ctx, async (now) => (await listLocks(ctx.db, { unreleased: true, expiresBefore: now })).map((lock) => lock.seq));
  const expired = (
    await inChunks(ctx, EVERYTHING, lapsed, async (seq, now) => {
      const lock = await getLock(ctx.db, seq);
      // Renewed or released since it was listed: no longer lapsed.
      return lock && lock.released_at === null && lock.expires_at <= now && (await expireLock(ctx, lock, now)) ? true : undefined;
    })
  ).length;
  const olderThanMs = input.olderThanMs;
  const purgedLocks = olderThanMs === undefined ? 0 : await repeatInChunks(ctx, EVERYTHING, (now, rows) => purgeReleased(ctx.db, now - olderThanMs, rows));
  const purgedEvents = olderThanMs === undefined ? 0 : await repeatInChunks(ctx, EVERYTHING, (now, rows) => purgeEvents(ctx.db, now - olderThanMs, rows));
  const indexFiles = await readTransaction(ctx, async (now) => sweepIndexes(ctx, now, false));
  const pins = await sweepPins(ctx, false);
  return { expired, purged_locks: purgedLocks, purged_events: purgedEvents, index_files: indexFiles, ...pins, dry_run: false };
}

// What the real run would change, read from one snapshot. Expiring locks writes events, so with any to
// expire, the newest event now (kept by a purge today) would then be purgeable too.
async function dryRun(ctx: CoordContext, olderThanMs: number | undefined): Promise<SweepResult> {
  const pins = await sweepPins(ctx, true);
  return readTransaction(ctx, async (now) => {
    const expired = (await listLocks(ctx.db, { unreleased: true, expiresBefore: now })).length;
    const cutoff = olderThanMs === undefined ? undefined : now - olderThanMs;
    let purgedEvents = 0;
    if (cutoff !== undefined) {
      purgedEvents = await countEventsBefore(ctx.db, cutoff);
      const newest = await newestEventId(ctx.db);
      if (expired > 0 && newest !== undefined && newest.created_at < cutoff) purgedEvents++;
    }
    const purgedLocks = cutoff === undefined ? 0 : await countReleasedBefore(ctx.db, cutoff);
    return { expired, purged_locks: purgedLocks, purged_events: purgedEvents, index_files: await sweepIndexes(ctx, now, true), ...pins, dry_run: true };
  });
}

// The cleanup loop of private indexes: a session that ended without its SessionEnd hook leaves its index
// behind; after 24 h with no write to it and no event of its owner, it goes.
async function sweepIndexes(ctx: CoordContext, now: number, dryRun: boolean): Promise<number> {
  const dir = indexDirOf(ctx);
  if (dir === undefined) return 0;
  const activity = await allLastActivity(ctx.db);
  return sweepIndexFiles(dir, now, (owner) => activity.get(owner), dryRun).length;
}

// Records live this long (purgeLatest, purgeCommands): a pin whose blob a younger record names is kept.
const RECORD_LIFE_MS = 24 * 3_600_000;

type PinSweep = Pick<SweepResult, 'dropped_pins' | 'kept_pins' | 'displaced_dirs'>;

// Custody's pins (refs/ic/custody/<day>/<blob>, src/store/git/keep.ts) of the repository sweep runs in:
// those past the retention (14 days) whose blob no live record (a holder's latest content, a running
// command's snapshot) still needs are deleted; `git gc` may then prune their blobs. Outside git, nothing.
// Files moved aside are kept as pinned blobs too (the displaced event's detail.saved): their copies under
// <git common dir>/ic/displaced/ go after the same retention.
async function sweepPins(ctx: CoordContext, dryRun: boolean): Promise<PinSweep> {
  // On a server, custody's shared copies (src/hooks/custody/shared-blobs.ts) go by the same retention.
  if (!dryRun && ctx.db.engine === 'postgres') await sweepServerBlobs((ctx.db as PgConnection).pg, (await ctx.db.now(ctx.clock)) - RETENTION_MS);
  if (!ctx.git) return { dropped_pins: 0, kept_pins: 0, displaced_dirs: 0 };
  const repo = { commonDir: ctx.git.commonDir };
  const { needed, now } = await readTransaction(ctx, async (now) => ({ needed: await recordedBlobs(ctx.db, now - RECORD_LIFE_MS), now }));
  const displaced = removeStale(join(repo.commonDir, 'ic', 'displaced'), now - RETENTION_MS, { ageOf: (_, name) => displacedTime(name), dryRun });
  const pins = listPins(repo);
  if (!isServerDb(ctx.dbLocation)) for (const marker of listMarkers(ctx.dbLocation.path)) for (const row of marker.rows) if (row.blob !== null) needed.add(row.blob);
  const expired = expiredPins(pins, needed, now);
  if (!dryRun) dropPins(repo, expired);
  return { dropped_pins: expired.length, kept_pins: pins.length - expired.length, displaced_dirs: displaced };
}

// A displaced directory's name is the restore's time, ':' spelled '-' (restore.ts, displacedDir).
function displacedTime(name: string): number | undefined {
  const time = Date.parse(name.replace(/T(\d\d)-(\d\d)-(\d\d)/, 'T$1:$2:$3'));
  return Number.isNaN(time) ? undefined : time;
}
