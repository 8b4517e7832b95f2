import { tallyEvents, type ConflictGroup } from '../store/stats';
import { readTransaction, type CoordContext } from './context';
import { serverProject } from './events';

export interface Stats {
  since: number | null;
  tries: number;
  grants: number;
  renewals: number;
  conflicts: number;
  denied_tries: number;
  waits: number;
  wait_rate: number;
  conflict_rate: number;
  expiries: number;
  releases: number;
  force_releases: number;
  transfers: number;
  most_contended_patterns: { pattern: string; conflicts: number }[];
  most_blocking_owners: { owner: string; conflicts: number }[];
  most_blocked_owners: { owner: string; conflicts: number }[];
}

const TOP = 10;

// Figures from the events table: a try is a reserve that granted, renewed or was denied (one denied try
// writes one conflict event per blocker, counted once).
export async function stats(ctx: CoordContext, sinceMs?: number): Promise<Stats> {
  return readTransaction(ctx, async (now) => {
    const since = sinceMs === undefined ? 0 : now - sinceMs;
    const tally = await tallyEvents(ctx.db, since, serverProject(ctx));
    const count = (type: string) => tally.byType.get(type) ?? 0;
    const [grants, renewals, denied, waits] = [count('reserved'), count('renewed'), tally.deniedTries, count('waited')];
    const tries = grants + renewals + denied;
    return {
      since: sinceMs === undefined ? null : since,
      tries,
      grants,
      renewals,
      conflicts: count('conflict'),
      denied_tries: denied,
      waits,
      wait_rate: tries ? waits / tries : 0,
      conflict_rate: tries ? denied / tries : 0,
      expiries: count('expired'),
      releases: count('released'),
      force_releases: count('force_released'),
      transfers: count('transferred'),
      most_contended_patterns: topBy(tally.conflicts, (group) => group.heldPattern).map(([pattern, conflicts]) => ({ pattern: pattern!, conflicts })),
      most_blocking_owners: topBy(tally.conflicts, (group) => group.heldOwner).map(([owner, conflicts]) => ({ owner: owner!, conflicts })),
      most_blocked_owners: topBy(tally.conflicts, (group) => group.owner).map(([owner, conflicts]) => ({ owner, conflicts })),
    };
  });
}

// The TOP keys with the most conflicts, most first, ties by key (a missing key first, as SQL sorts NULL).
export function topBy<K extends string | null>(groups: ConflictGroup[], key: (group: ConflictGroup) => K): [K, number][] {
  const totals = new Map<K, number>();
  for (const group of groups) totals.set(key(group), (totals.get(key(group)) ?? 0) + group.conflicts);
  return [...totals].sort(([a, m], [b, n]) => n - m || compareKeys(a, b)).slice(0, TOP);
}

function compareKeys(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  return a < b ? -1 : 1;
}
