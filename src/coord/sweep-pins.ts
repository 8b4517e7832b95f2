import { recordedBlobs } from '../store/custody';
import { isServerDb } from '../store/discover';
import { listMarkers } from '../store/markers';
import { join } from 'node:path';
import { dropPins, expiredPins, listPins, RETENTION_MS } from '../store/git/keep';
import { removeStale } from '../store/stale-files';
import { sweepServerBlobs } from '../store/postgres/custody-blobs';
import type { PgConnection } from '../store/postgres/pg-connection';
import { readTransaction, type CoordContext } from './context';

// Records live this long (purgeLatest, purgeCommands): a pin whose blob a younger record names is kept.
const RECORD_LIFE_MS = 24 * 3_600_000;

export interface PinSweep {
  /** Custody's kept contents (refs/ic/custody/) past their 14 days and needed by no live record: deleted. */
  dropped_pins: number;
  /** Custody's kept contents still within their 14 days, or still needed. */
  kept_pins: number;
  /** Directories of files custody moved aside (<git common dir>/ic/displaced/<time>/) past the same 14 days, deleted. */
  displaced_dirs: number;
}

// Custody's pins (refs/ic/custody/<day>/<blob>, src/store/git/keep.ts) of the repository sweep runs in:
// those past the retention (14 days) whose blob no live record (a holder's latest content, a running
// command's snapshot) still needs are deleted; `git gc` may then prune their blobs. Outside git, nothing.
// Files moved aside are kept as pinned blobs too (the displaced event's detail.saved): their copies under
// <git common dir>/ic/displaced/ go after the same retention.
export async function sweepPins(ctx: CoordContext, dryRun: boolean): Promise<PinSweep> {
  // On a server, custody's shared copies (src/hooks/custody/shared-blobs.ts) go by the same retention.
  if (!dryRun && ctx.db.engine === 'postgres') await sweepServerBlobs((ctx.db as PgConnection).pg, (await ctx.db.now(ctx.clock)) - RETENTION_MS);
  if (!ctx.git) return { dropped_pins: 0, kept_pins: 0, displaced_dirs: 0 };
  const repo = { commonDir: ctx.git.commonDir };
  const { needed, now } = await readTransaction(ctx, async (now) => ({ needed: await recordedBlobs(ctx.db, now - RECORD_LIFE_MS), now }));
  const displaced = removeStale(join(repo.commonDir, 'ic', 'displaced'), now - RETENTION_MS, { ageOf: (_, name) => displacedTime(name), dryRun });
  const pins = listPins(repo);
  if (pins.length === 0) return { dropped_pins: 0, kept_pins: 0, displaced_dirs: displaced };
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
