import { overlaps } from '../../src/core/glob';

// An event as `coord events` prints it: the stored row (EventRow below) with its detail parsed.
export type ReplayEvent = Omit<EventRow, 'reason' | 'created_at' | 'detail'> & { detail: Record<string, unknown> | null };

interface Held {
  id: string;
  owner: string;
  pattern: string;
  mode: string;
}

// An independent checker: replays the event log in commit order and reports every moment at which two
// conflicting locks (different owners, one exclusive, overlapping) were both held.
// Modes over time: a `reserved` or `renewed` event that records `detail.mode` is the log's own word. A
// renewal that records none (a re-reserve may switch the mode in place) leaves the mode before it unknown:
// `modes` (the table's final modes) is only known to hold from a lock's last such renewal on. An unknown
// mode is taken as shared (it conflicts only with an exclusive lock of known mode), so the checker reports
// only what is certain, and checks again at the renewal, where the final mode starts to bind.
export function findDoubleGrants(events: ReplayEvent[], modes: Map<string, string>): string[] {
  const lastSilentRenewal = new Map<string, number>();
  for (const event of events) if (event.lock_id && event.type === 'renewed' && !renewalOf(event).mode) lastSilentRenewal.set(event.lock_id, event.id);
  const held = new Map<string, Held>();
  const violations: string[] = [];
  // Unknown counts as shared: it conflicts only with a lock known to be exclusive.
  const exclusive = (lock: Held) => lock.mode === 'exclusive';
  const check = (lock: Held, event: ReplayEvent, what: string) => {
    for (const other of held.values()) {
      if (other.id === lock.id || other.owner === lock.owner || !(exclusive(other) || exclusive(lock))) continue;
      if (overlaps(other.pattern, lock.pattern).overlap) violations.push(`event ${event.id}: ${lock.owner} ${what} while ${other.owner} held ${other.mode === 'exclusive' ? '' : `${other.mode} `}${other.pattern}`);
    }
  };
  for (const event of events) {
    if (!event.lock_id) continue;
    if (event.type === 'reserved') {
      const logged = renewalOf(event).mode;
      const mode = logged ?? (lastSilentRenewal.has(event.lock_id) ? 'unknown' : (modes.get(event.lock_id) ?? 'exclusive'));
      const lock = { id: event.lock_id, owner: event.owner, pattern: event.pattern ?? '', mode };
      check(lock, event, `got ${lock.pattern}`);
      held.set(lock.id, lock);
    } else if (['released', 'force_released', 'expired'].includes(event.type)) {
      held.delete(event.lock_id);
    } else if (event.type === 'transferred' || event.type === 'taken_over') {
      const lock = held.get(event.lock_id);
      if (lock) lock.owner = event.owner;
    } else if (event.type === 'renewed') {
      // A renewal may switch shared/exclusive in place: from then on the new mode binds.
      const lock = held.get(event.lock_id);
      const logged = renewalOf(event).mode;
      const mode = logged ?? (lastSilentRenewal.get(event.lock_id) === event.id ? (modes.get(event.lock_id) ?? 'exclusive') : 'unknown');
      if (!lock || mode === lock.mode) continue;
      lock.mode = mode;
      if (mode !== 'unknown') check(lock, event, `switched ${lock.pattern} to ${mode}`);
    }
  }
  return violations;
}

// What a `renewed` event's detail records (ic 0.2): the new expiry (epoch ms), the mode after it, and the
// mode before when the renewal switched it. Fields absent from older logs come back undefined.
export function renewalOf(event: { detail: string | Record<string, unknown> | null }): { mode?: string; previousMode?: string; expiresAt?: number } {
  let detail: Record<string, unknown> | null = null;
  if (typeof event.detail === 'string') {
    try {
      detail = JSON.parse(event.detail) as Record<string, unknown>;
    } catch {
      detail = null;
    }
  } else detail = event.detail;
  if (!detail) return {};
  const expires = detail.expires_at;
  return {
    ...(typeof detail.mode === 'string' ? { mode: detail.mode } : {}),
    ...(typeof detail.previous_mode === 'string' ? { previousMode: detail.previous_mode } : {}),
    ...(typeof expires === 'number' ? { expiresAt: expires } : typeof expires === 'string' ? { expiresAt: Date.parse(expires) } : {}),
  };
}

// ---------------------------------------------------------------------------------------------------
// The stress checker: replays a whole recorded history (every invocation and its result, plus the events
// and locks tables) and reports every violated claim. It trusts nothing of ic's but the pure overlaps();
// which locks are active when is modelled here from the events alone.
//
// Expiry: the harness gives each owner one fixed TTL and passes it on every reserve and renew, so after an
// event at time t (`reserved` or `renewed`, created_at = the transaction's clock) the lock's expiry is
// exactly t + ttl(owner). A lock is active at t iff it was granted, has no release event yet, and its
// expiry is > t (the contract's rule), whether or not any sweep ran. The locks table must agree at the end.
// Kills: a killed process's transaction either committed (its events and rows exist) or did not (nothing
// exists); the replay reads only committed rows, and each reserve is tagged (--reason inv:<id>:<mode>) so
// a half-applied command would show up as a partial set of tagged events.

export interface EventRow {
  id: number;
  type: string;
  lock_id: string | null;
  scope: string;
  owner: string;
  pattern: string | null;
  reason: string | null;
  created_at: number;
  detail: string | null;
}

export interface LockRow {
  id: string;
  token: number;
  type: string;
  scope: string;
  pattern: string;
  owner: string;
  mode: string;
  reason: string | null;
  created_at: number;
  expires_at: number;
  ttl_ms: number;
  released_at: number | null;
  release_reason: string | null;
}

export type StressOp = 'reserve' | 'check' | 'renew' | 'release' | 'force-release' | 'sweep';

export interface Invocation {
  id: number;
  op: StressOp;
  args: string[];
  owner: string | null;
  /** Canonical patterns asked for (reserve, check). */
  patterns: string[];
  shared: boolean;
  /** Harness wall clock: before spawn, and when the process was seen to exit (commit, if any, is before). */
  start: number;
  end: number;
  exitCode: number | null;
  signal: string | null;
  killed: boolean;
  stopped: boolean;
  stdout: string;
  stderr: string;
}

export interface History {
  events: EventRow[];
  locks: LockRow[];
  invocations: Invocation[];
  ttlByOwner: Record<string, number>;
  lockDelayMs: number;
}

export interface CheckReport {
  violations: string[];
  counts: Record<string, number>;
}

interface ModelLock {
  id: string;
  owner: string;
  pattern: string;
  mode: string;
  grantedAt: number;
  grantExpiry: number;
  expiresAt: number;
  grantInvocation: number | null;
  grantMode: string;
  /** When a tagged re-reserve changed the mode, and to what. */
  modeChanges: { at: number; mode: string }[];
  renewals: number[];
  released: { type: string; at: number } | null;
}

const RELEASE_TYPES: Record<string, string> = { released: 'released', force_released: 'force_released', expired: 'expired' };
const ALLOWED_EXITS = new Set([0, 1, 75]);

export function reserveTag(invocation: number, shared: boolean): string {
  return `inv:${invocation}:${shared ? 's' : 'x'}`;
}

function parseTag(reason: string | null): { invocation: number; mode: string | null } | null {
  const match = /^inv:(\d+)(?::([sx]))?$/.exec(reason ?? '');
  if (!match) return null;
  return { invocation: Number(match[1]), mode: match[2] === 's' ? 'shared' : match[2] === 'x' ? 'exclusive' : null };
}

function parseJson(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function checkHistory(history: History): CheckReport {
  const violations: string[] = [];
  const counts: Record<string, number> = {};
  const bump = (key: string, by = 1) => (counts[key] = (counts[key] ?? 0) + by);
  const fail = (message: string) => {
    bump('violations');
    if (violations.length < 200) violations.push(message);
  };
  const overlapMemo = new Map<string, boolean>();
  const overlap = (a: string, b: string) => {
    const key = `${a}\u0000${b}`;
    let value = overlapMemo.get(key);
    if (value === undefined) overlapMemo.set(key, (value = overlaps(a, b).overlap));
    return value;
  };
  const ttlOf = (owner: string) => {
    const ttl = history.ttlByOwner[owner];
    if (ttl === undefined) throw new Error(`no TTL known for owner ${owner}`);
    return ttl;
  };
  const delay = history.lockDelayMs;
  const isActive = (lock: ModelLock, t: number) => lock.released === null && lock.expiresAt > t;
  const bindingState = (lock: ModelLock, t: number): 'active' | 'lock_delay' | null => {
    if (isActive(lock, t)) return 'active';
    const byExpiry = lock.released === null || lock.released.type === 'expired';
    return byExpiry && delay > 0 && lock.expiresAt <= t && lock.expiresAt + delay > t ? 'lock_delay' : null;
  };
  const blocks = (a: ModelLock, b: { owner: string; mode: string; pattern: string }) =>
    a.owner !== b.owner && !(a.mode === 'shared' && b.mode === 'shared') && overlap(a.pattern, b.pattern);

  const model = new Map<string, ModelLock>();
  const live = new Set<ModelLock>(); // locks that may still bind: pruned once they never can again
  const tagged = new Map<number, EventRow[]>();
  const grantOrder: string[] = [];
  const tokenEvents = new Map<string, number>(); // lock id → id of the event that gave it its current token
  let lastTime = -Infinity;

  for (const event of history.events) {
    bump(`events.${event.type}`);
    const t = event.created_at;
    if (t < lastTime) fail(`event ${event.id}: created_at ${t} is before the previous event's ${lastTime}: commit order and clock disagree`);
    lastTime = Math.max(lastTime, t);
    const tag = parseTag(event.reason);
    if (tag && event.type !== 'conflict') tagged.set(tag.invocation, [...(tagged.get(tag.invocation) ?? []), event]);
    if (!event.lock_id) continue;
    const lock = model.get(event.lock_id);
    for (const other of live) {
      if (other.released !== null && other.released.type !== 'expired') live.delete(other);
      else if (other.expiresAt + Math.max(delay, 0) <= t && (other.released !== null || other.expiresAt <= t)) live.delete(other);
    }
    switch (event.type) {
      case 'reserved': {
        if (lock) {
          fail(`event ${event.id}: lock ${event.lock_id} reserved twice`);
          break;
        }
        const ttl = ttlOf(event.owner);
        const granted: ModelLock = {
          id: event.lock_id,
          owner: event.owner,
          pattern: event.pattern ?? '',
          mode: tag?.mode ?? 'exclusive',
          grantMode: tag?.mode ?? 'exclusive',
          grantedAt: t,
          grantExpiry: t + ttl,
          expiresAt: t + ttl,
          grantInvocation: tag?.invocation ?? null,
          modeChanges: [],
          renewals: [],
          released: null,
        };
        checkGrant(event, granted, t, true);
        model.set(granted.id, granted);
        live.add(granted);
        grantOrder.push(granted.id);
        tokenEvents.set(granted.id, event.id);
        break;
      }
      case 'renewed': {
        if (!lock) {
          fail(`event ${event.id}: renewed unknown lock ${event.lock_id}`);
          break;
        }
        if (!isActive(lock, t)) fail(`event ${event.id}: renewed lock ${lock.id} (${lock.owner} ${lock.pattern}) that was not active at ${t} (expiry ${lock.expiresAt}, released ${JSON.stringify(lock.released)})`);
        // The log's own word (detail.mode, detail.expires_at, detail.previous_mode) is checked against the
        // harness's tag and TTL, and wins where the tag says nothing (a renewal by `renew`).
        const logged = renewalOf(event);
        if (logged.mode && tag?.mode && logged.mode !== tag.mode) fail(`event ${event.id}: renewed records mode ${logged.mode}, the reserve asked for ${tag.mode}`);
        const mode = logged.mode ?? tag?.mode;
        if (logged.previousMode && logged.previousMode !== lock.mode) fail(`event ${event.id}: renewed records previous mode ${logged.previousMode}, the replay says ${lock.mode}`);
        if (mode && mode !== lock.mode) {
          if (logged.mode && !logged.previousMode) fail(`event ${event.id}: renewal switched ${lock.id} from ${lock.mode} to ${mode} without recording previous_mode`);
          lock.mode = mode;
          lock.modeChanges.push({ at: t, mode });
          bump('mode_switches');
        } else if (logged.previousMode) fail(`event ${event.id}: renewed records a switch from ${logged.previousMode} but the mode stayed ${lock.mode}`);
        const expected = t + ttlOf(lock.owner);
        if (logged.expiresAt !== undefined && logged.expiresAt !== expected) fail(`event ${event.id}: renewed records expiry ${logged.expiresAt}, the TTL gives ${expected}`);
        lock.expiresAt = expected;
        lock.renewals.push(t);
        live.add(lock);
        checkGrant(event, lock, t, tag !== null);
        break;
      }
      case 'released':
      case 'force_released':
      case 'expired': {
        if (!lock) {
          fail(`event ${event.id}: ${event.type} unknown lock ${event.lock_id}`);
          break;
        }
        if (lock.released) fail(`event ${event.id}: lock ${lock.id} ${event.type} after it was already ${lock.released.type}`);
        if (event.type === 'expired' && lock.expiresAt > t) fail(`event ${event.id}: lock ${lock.id} marked expired at ${t}, before its expiry ${lock.expiresAt}`);
        lock.released = { type: event.type, at: t };
        break;
      }
      case 'taken_over': // a stalled claim changing hands: like a transfer, with a new token
      case 'transferred': {
        if (lock) lock.owner = event.owner;
        if (lock) tokenEvents.set(lock.id, event.id);
        break;
      }
      case 'conflict': {
        if (!lock) {
          fail(`event ${event.id}: conflict with unknown lock ${event.lock_id}`);
          break;
        }
        const detail = parseJson(event.detail ?? '') ?? {};
        const state = bindingState(lock, t);
        if (state === null) fail(`event ${event.id}: ${event.owner} was refused ${event.pattern} because of ${lock.id} (${lock.owner} ${lock.pattern}), which did not bind at ${t} (expiry ${lock.expiresAt}, released ${JSON.stringify(lock.released)})`);
        else if (detail.state && detail.state !== state) fail(`event ${event.id}: conflict state ${detail.state}, the model says ${state}`);
        if (lock.owner === event.owner || !overlap(lock.pattern, event.pattern ?? '')) fail(`event ${event.id}: refused ${event.owner} ${event.pattern} because of ${lock.owner} ${lock.pattern}, which cannot conflict`);
        break;
      }
    }
  }

  // At a grant (or a renewal) at t: no other owner's conflicting lock is active; at a reserve, none is
  // in its lock-delay either. A renewal by `renew` skips the lock-delay rule (it is not a new grant).
  function checkGrant(event: EventRow, lock: ModelLock, t: number, reserveRule: boolean): void {
    for (const other of live) {
      if (other.id === lock.id || !blocks(other, lock)) continue;
      const state = bindingState(other, t);
      if (state === 'active') {
        fail(`event ${event.id}: DOUBLE GRANT at ${t}: ${lock.owner} ${lock.mode} ${lock.pattern} (${lock.id}) while ${other.owner} held ${other.mode} ${other.pattern} (${other.id}, expiry ${other.expiresAt})`);
        bump('double_grants');
      } else if (state === 'lock_delay' && reserveRule) {
        fail(`event ${event.id}: LOCK-DELAY broken at ${t}: ${lock.owner} got ${lock.pattern} (${lock.id}) within the delay of ${other.owner}'s lapsed ${other.pattern} (${other.id}, expiry ${other.expiresAt})`);
      }
    }
  }

  checkTable();
  checkInvocations();
  counts.grants = counts['events.reserved'] ?? 0;
  return { violations, counts };

  // The locks table agrees with the replay: every row whole and matching, and each fencing token the id of
  // the event that assigned it, so tokens strictly increase in grant order and each belongs to a committed grant.
  function checkTable(): void {
    const rows = new Map(history.locks.map((row) => [row.id, row]));
    for (const row of history.locks) if (!model.has(row.id)) fail(`lock row ${row.id} has no reserved event`);
    for (const lock of model.values()) {
      const row = rows.get(lock.id);
      if (!row) {
        fail(`lock ${lock.id} (${lock.owner} ${lock.pattern}) has events but no row: a committed grant is missing`);
        continue;
      }
      if (row.owner !== lock.owner || row.pattern !== lock.pattern) fail(`lock ${lock.id}: row says ${row.owner} ${row.pattern}, events say ${lock.owner} ${lock.pattern}`);
      if (row.mode !== lock.mode) fail(`lock ${lock.id}: row mode ${row.mode}, replay says ${lock.mode}`);
      if (row.expires_at !== lock.expiresAt) fail(`lock ${lock.id}: row expires_at ${row.expires_at}, replay says ${lock.expiresAt}`);
      if (row.ttl_ms !== ttlOf(lock.owner)) fail(`lock ${lock.id}: ttl_ms ${row.ttl_ms}, expected ${ttlOf(lock.owner)}`);
      if ((row.released_at ?? null) !== (lock.released?.at ?? null)) fail(`lock ${lock.id}: released_at ${row.released_at}, replay says ${lock.released?.at ?? null}`);
      if (lock.released && row.release_reason !== RELEASE_TYPES[lock.released.type]) fail(`lock ${lock.id}: release_reason ${row.release_reason} after a ${lock.released.type} event`);
    }
    for (const id of grantOrder) {
      const token = rows.get(id)?.token;
      if (token !== undefined && token !== tokenEvents.get(id)) fail(`fencing token of ${id} is ${token}, not the id of the event that assigned it (${tokenEvents.get(id)})`);
    }
  }

  function checkInvocations(): void {
    const byStart = [...model.values()].sort((a, b) => a.grantedAt - b.grantedAt);
    const grantTimes = byStart.map((lock) => lock.grantedAt);
    const invocations = new Map(history.invocations.map((inv) => [inv.id, inv]));
    const maxTtl = Math.max(...Object.values(history.ttlByOwner));
    const rows = new Map(history.locks.map((row) => [row.id, row]));
    for (const inv of history.invocations) {
      bump('ops');
      bump(`ops.${inv.op}`);
      if (inv.killed) bump('killed');
      if (inv.stopped) bump('stopped');
      const events = tagged.get(inv.id) ?? [];
      if (inv.killed && events.length > 0) bump('killed_after_commit');
      if (inv.killed && inv.exitCode === null) {
        if (inv.op === 'reserve' && events.length !== 0 && events.length !== new Set(inv.patterns).size) fail(`invocation ${inv.id} (killed reserve of ${inv.patterns.join(' ')}) left ${events.length} of ${new Set(inv.patterns).size} locks: not atomic`);
        continue;
      }
      if (inv.exitCode === null || !ALLOWED_EXITS.has(inv.exitCode)) {
        fail(`invocation ${inv.id} (${inv.args.join(' ')}): exit ${inv.exitCode} signal ${inv.signal}: ${inv.stderr.trim().slice(0, 300)}`);
        continue;
      }
      if (inv.exitCode === 75) bump('busy');
      const json = parseJson(inv.stdout);
      if (json === undefined) {
        fail(`invocation ${inv.id} (${inv.args.join(' ')}): stdout is not one JSON document: ${inv.stdout.slice(0, 200)}`);
        continue;
      }
      if (inv.op === 'reserve') checkReserve(inv, json, events);
      else if (inv.op === 'renew' && inv.exitCode === 0) checkRenew(inv, json);
      else if ((inv.op === 'release' || inv.op === 'force-release') && inv.exitCode === 0) checkRelease(inv, json, events);
      else if (inv.op === 'check' && (inv.exitCode === 0 || inv.exitCode === 1)) checkCheck(inv, json);
      if ((inv.op === 'release' || inv.op === 'force-release') && inv.exitCode !== 0 && events.length > 0) fail(`invocation ${inv.id}: a failed release wrote ${events.length} events`);
    }

    function checkReserve(inv: Invocation, json: any, events: EventRow[]): void {
      const expected = new Set(inv.patterns).size;
      if (inv.exitCode !== 0) {
        if (inv.exitCode === 1) bump('conflicts');
        if (events.length > 0) fail(`invocation ${inv.id}: reserve failed (exit ${inv.exitCode}) but wrote ${events.length} grant events`);
        if (inv.exitCode === 1) {
          for (const conflict of json.error?.conflicts ?? []) {
            const lock = model.get(conflict.held?.id);
            if (!lock) fail(`invocation ${inv.id}: reported a conflict with unknown lock ${conflict.held?.id}`);
            else if (lock.owner !== conflict.held.owner && lock.grantedAt <= inv.end) fail(`invocation ${inv.id}: conflict names owner ${conflict.held.owner} for ${lock.id}, replay says ${lock.owner}`);
          }
        }
        return;
      }
      const locks: any[] = json.locks ?? [];
      if (locks.length !== expected || events.length !== expected) fail(`invocation ${inv.id}: reserve of ${expected} patterns printed ${locks.length} locks and committed ${events.length} grant events`);
      for (const printed of locks) {
        const lock = model.get(printed.id);
        const event = events.find((e) => e.lock_id === printed.id);
        if (!lock || !event) {
          fail(`invocation ${inv.id}: printed granted lock ${printed.id} that is missing from the database`);
          continue;
        }
        const row = rows.get(printed.id);
        if (row && row.token !== printed.token) fail(`invocation ${inv.id}: printed token ${printed.token} for ${printed.id}, the table has ${row.token}`);
        if (printed.owner !== inv.owner || printed.mode !== (inv.shared ? 'shared' : 'exclusive')) fail(`invocation ${inv.id}: printed ${printed.owner} ${printed.mode} for a ${inv.owner} ${inv.shared ? 'shared' : 'exclusive'} reserve`);
        if (Date.parse(printed.expires_at) !== event.created_at + ttlOf(lock.owner)) fail(`invocation ${inv.id}: printed expiry ${printed.expires_at} for ${printed.id}, the grant committed at ${event.created_at}`);
      }
    }

    function checkRenew(inv: Invocation, json: any): void {
      for (const printed of json.locks ?? []) {
        const lock = model.get(printed.id);
        const at = Date.parse(printed.expires_at) - ttlOf(printed.owner);
        if (!lock || !lock.renewals.includes(at)) fail(`invocation ${inv.id}: printed renewal of ${printed.id} to ${printed.expires_at} that has no renewed event`);
      }
    }

    function checkRelease(inv: Invocation, json: any, events: EventRow[]): void {
      for (const printed of json.released ?? []) {
        const lock = model.get(printed.id);
        if (!lock?.released || lock.released.at !== Date.parse(printed.released_at)) fail(`invocation ${inv.id}: printed release of ${printed.id} at ${printed.released_at} that the events do not show`);
      }
      if (events.length !== (json.released ?? []).length) fail(`invocation ${inv.id}: printed ${(json.released ?? []).length} releases, committed ${events.length} release events`);
    }

    // A check sees every lock granted before it started that stays active until after it ended, and
    // reports only locks that exist, belong to someone else, overlap, and had not expired when it started.
    function checkCheck(inv: Invocation, json: any): void {
      const conflicts: any[] = json.conflicts ?? [];
      if (json.free !== (conflicts.length === 0) || (inv.exitCode === 0) !== json.free) fail(`invocation ${inv.id}: check says free=${json.free} with ${conflicts.length} conflicts and exit ${inv.exitCode}`);
      const mode = inv.shared ? 'shared' : 'exclusive';
      const reported = new Set<string>();
      for (const conflict of conflicts) {
        const held = conflict.held ?? {};
        reported.add(held.id);
        const lock = model.get(held.id);
        if (!lock) {
          fail(`invocation ${inv.id}: check reported unknown lock ${held.id}`);
          continue;
        }
        if (lock.grantedAt > inv.end) fail(`invocation ${inv.id}: check reported ${lock.id}, granted only after the check ended`);
        // Any mode the lock had up to the end of the check (a re-reserve may have changed it meanwhile).
        const modes = new Set([lock.grantMode, ...lock.modeChanges.filter((c) => c.at <= inv.end).map((c) => c.mode)]);
        if (held.owner === inv.owner || ![...modes].some((m) => inv.patterns.some((p) => blocks({ ...lock, mode: m }, { owner: inv.owner ?? '', mode, pattern: p })))) fail(`invocation ${inv.id}: check reported ${lock.id} (${lock.owner} ${lock.mode} ${lock.pattern}), which cannot conflict with ${inv.owner} ${mode} ${inv.patterns.join(' ')}`);
        if (conflict.state === 'active' && Date.parse(held.expires_at) <= inv.start) fail(`invocation ${inv.id}: check reported ${lock.id} as active though it expired at ${held.expires_at}, before the check started`);
      }
      const lo = lowerBound(grantTimes, inv.end - maxTtl);
      for (let i = lo; i < byStart.length && byStart[i]!.grantedAt <= inv.start; i++) {
        const lock = byStart[i]!;
        const grant = lock.grantInvocation !== null ? invocations.get(lock.grantInvocation) : undefined;
        if (!grant || grant.end >= inv.start || lock.grantExpiry <= inv.end) continue;
        if (lock.released && lock.released.at <= inv.end) continue;
        if (lock.modeChanges.some((c) => c.at <= inv.end)) continue;
        if (!inv.patterns.some((p) => blocks({ ...lock, mode: lock.grantMode }, { owner: inv.owner ?? '', mode, pattern: p }))) continue;
        bump('visibility_checked');
        if (!reported.has(lock.id)) fail(`invocation ${inv.id}: check by ${inv.owner} of ${inv.patterns.join(' ')} did not see ${lock.owner}'s ${lock.mode} ${lock.pattern} (${lock.id}), granted before it started and active until after it ended`);
      }
    }
  }
}

function lowerBound(sorted: number[], value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
