import { overlaps } from '../../src/core/glob';
import type { StoredEvent } from '../../src/store/events';

// An event as `coord events` prints it: the stored row (EventRow below) with its detail parsed.
export type ReplayEvent = Omit<EventRow, 'reason' | 'created_at' | 'detail'> & { reason?: string | null; detail: Record<string, unknown> | null };

interface Held {
  id: string;
  owner: string;
  pattern: string;
  mode: string;
}

// An independent checker: replays the event log in commit order and reports every moment at which two
// conflicting locks (different owners, one exclusive, overlapping) were both held.
// Modes over time: a `reserved` or `renewed` event that records `detail.mode` is the log's own word; else a
// reserve's tag (--reason inv:<n>:<s|x>) when the run tagged its reserves. A renewal that records neither
// leaves the mode before it unknown: `modes` (the table's final modes) is only known to hold from a lock's
// last such renewal on. An unknown mode is taken as shared (it conflicts only with an exclusive lock of
// known mode), so the checker reports only what is certain.
export function findDoubleGrants(events: ReplayEvent[], modes: Map<string, string>): string[] {
  const lastSilentRenewal = new Map<string, number>();
  for (const event of events) if (event.lock_id && event.type === 'renewed' && !renewalOf(event).mode && !parseTag(event.reason ?? null)?.mode) lastSilentRenewal.set(event.lock_id, event.id);
  const held = new Map<string, Held>();
  const violations: string[] = [];
  // Unknown counts as shared: it conflicts only with a lock known to be exclusive.
  const exclusive = (lock: Held) => lock.mode === 'exclusive';
  const check = (lock: Held, event: ReplayEvent, what: string) => {
    for (const other of held.values()) {
      if (other.id === lock.id || other.owner === lock.owner || !(exclusive(other) || exclusive(lock))) continue;
      if (overlaps(other.pattern, lock.pattern).overlap)
        violations.push(`event ${event.id}: ${lock.owner} ${what} while ${other.owner} held ${other.mode === 'exclusive' ? '' : `${other.mode} `}${other.pattern}`);
    }
  };
  for (const event of events) {
    if (!event.lock_id) continue;
    const taggedMode = parseTag(event.reason ?? null)?.mode ?? null;
    if (event.type === 'reserved') {
      const logged = renewalOf(event).mode ?? taggedMode;
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
      const logged = renewalOf(event).mode ?? taggedMode;
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

// A row of the events table as the store reads it (only the type is widened, to plant unknown ones).
export type EventRow = Omit<StoredEvent, 'type'> & { type: string };

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
  /** Alive while the database server restarted (test/postgres/stress.test.ts): a connection lost before or during
   * COMMIT leaves the outcome unknown to the client, as a kill does; it answers BUSY (75) or, while the server
   * is down, DB_UNAVAILABLE (69), and what it did is then judged as a killed call's is. */
  outage?: boolean;
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

type Tag = { invocation: number; mode: string | null };

// What every check shares: the history, the report being written and the memoised overlap test.
interface Checker {
  history: History;
  violations: string[];
  counts: Record<string, number>;
  overlapMemo: Map<string, boolean>;
}

// What the replay of the events builds: the model of every lock, and what the later checks look up.
interface Replay {
  model: Map<string, ModelLock>;
  /** Locks that may still bind: pruned once they never can again. */
  live: Set<ModelLock>;
  /** Events tagged with an invocation id (--reason inv:<id>:<mode>), conflicts excepted. */
  tagged: Map<number, EventRow[]>;
  grantOrder: string[];
  /** Lock id → id of the event that gave it its current token. */
  tokenEvents: Map<string, number>;
}

const RELEASE_TYPES: Record<string, string> = { released: 'released', force_released: 'force_released', expired: 'expired' };
const ALLOWED_EXITS = new Set([0, 1, 75]);
const MAX_LISTED_VIOLATIONS = 200;

export function reserveTag(invocation: number, shared: boolean): string {
  return `inv:${invocation}:${shared ? 's' : 'x'}`;
}

function parseTag(reason: string | null): Tag | null {
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

// Replays the events into a model of the locks, then checks the locks table and every invocation against it.
export function checkHistory(history: History): CheckReport {
  const checker: Checker = { history, violations: [], counts: {}, overlapMemo: new Map() };
  const replay = replayEvents(checker);
  checkTable(checker, replay);
  checkInvocations(checker, replay);
  checker.counts.grants = checker.counts['events.reserved'] ?? 0;
  return { violations: checker.violations, counts: checker.counts };
}

function bump(c: Checker, key: string, by = 1): void {
  c.counts[key] = (c.counts[key] ?? 0) + by;
}

function fail(c: Checker, message: string): void {
  bump(c, 'violations');
  if (c.violations.length < MAX_LISTED_VIOLATIONS) c.violations.push(message);
}

function overlap(c: Checker, a: string, b: string): boolean {
  const key = `${a}\u0000${b}`;
  let value = c.overlapMemo.get(key);
  if (value === undefined) c.overlapMemo.set(key, (value = overlaps(a, b).overlap));
  return value;
}

function ttlOf(c: Checker, owner: string): number {
  const ttl = c.history.ttlByOwner[owner];
  if (ttl === undefined) throw new Error(`no TTL known for owner ${owner}`);
  return ttl;
}

function isActive(lock: ModelLock, t: number): boolean {
  return lock.released === null && lock.expiresAt > t;
}

// Whether a lock binds others at t: while active, and for lockDelayMs after it lapsed or was marked expired.
function bindingState(c: Checker, lock: ModelLock, t: number): 'active' | 'lock_delay' | null {
  if (isActive(lock, t)) return 'active';
  const delay = c.history.lockDelayMs;
  const byExpiry = lock.released === null || lock.released.type === 'expired';
  return byExpiry && delay > 0 && lock.expiresAt <= t && lock.expiresAt + delay > t ? 'lock_delay' : null;
}

// The conflict rule: different owners, not both shared, overlapping patterns.
function blocks(c: Checker, a: ModelLock, b: { owner: string; mode: string; pattern: string }): boolean {
  return a.owner !== b.owner && !(a.mode === 'shared' && b.mode === 'shared') && overlap(c, a.pattern, b.pattern);
}

// ---- the replay of the events, in commit order -------------------------------------------------------

function replayEvents(c: Checker): Replay {
  const replay: Replay = { model: new Map(), live: new Set(), tagged: new Map(), grantOrder: [], tokenEvents: new Map() };
  let lastTime = -Infinity;
  for (const event of c.history.events) {
    bump(c, `events.${event.type}`);
    const t = event.created_at;
    if (t < lastTime) fail(c, `event ${event.id}: created_at ${t} is before the previous event's ${lastTime}: commit order and clock disagree`);
    lastTime = Math.max(lastTime, t);
    const tag = parseTag(event.reason);
    if (tag && event.type !== 'conflict') replay.tagged.set(tag.invocation, [...(replay.tagged.get(tag.invocation) ?? []), event]);
    if (!event.lock_id) continue;
    pruneLive(c, replay, t);
    const lock = replay.model.get(event.lock_id);
    switch (event.type) {
      case 'reserved':
        applyReserved(c, replay, event, lock, tag);
        break;
      case 'renewed':
        applyRenewed(c, replay, event, lock, tag);
        break;
      case 'released':
      case 'force_released':
      case 'expired':
        applyRelease(c, event, lock);
        break;
      case 'taken_over': // a stalled claim changing hands: like a transfer, with a new token
      case 'transferred':
        if (lock) lock.owner = event.owner;
        if (lock) replay.tokenEvents.set(lock.id, event.id);
        break;
      case 'conflict':
        checkConflictEvent(c, event, lock);
        break;
    }
  }
  return replay;
}

// Drops the locks that can never bind again: released, or lapsed past their lock-delay.
function pruneLive(c: Checker, replay: Replay, t: number): void {
  const delay = Math.max(c.history.lockDelayMs, 0);
  for (const other of replay.live) {
    if (other.released !== null && other.released.type !== 'expired') replay.live.delete(other);
    else if (other.expiresAt + delay <= t && (other.released !== null || other.expiresAt <= t)) replay.live.delete(other);
  }
}

function applyReserved(c: Checker, replay: Replay, event: EventRow, lock: ModelLock | undefined, tag: Tag | null): void {
  if (lock) return fail(c, `event ${event.id}: lock ${event.lock_id} reserved twice`);
  const t = event.created_at;
  const ttl = ttlOf(c, event.owner);
  const logged = renewalOf(event).mode;
  if (logged && tag?.mode && logged !== tag.mode) fail(c, `event ${event.id}: reserved records mode ${logged}, the reserve asked for ${tag.mode}`);
  const mode = logged ?? tag?.mode ?? 'exclusive';
  const granted: ModelLock = {
    id: event.lock_id!,
    owner: event.owner,
    pattern: event.pattern ?? '',
    mode,
    grantMode: mode,
    grantedAt: t,
    grantExpiry: t + ttl,
    expiresAt: t + ttl,
    grantInvocation: tag?.invocation ?? null,
    modeChanges: [],
    renewals: [],
    released: null,
  };
  checkGrant(c, replay, event, granted, true);
  replay.model.set(granted.id, granted);
  replay.live.add(granted);
  replay.grantOrder.push(granted.id);
  replay.tokenEvents.set(granted.id, event.id);
}

function applyRenewed(c: Checker, replay: Replay, event: EventRow, lock: ModelLock | undefined, tag: Tag | null): void {
  if (!lock) return fail(c, `event ${event.id}: renewed unknown lock ${event.lock_id}`);
  const t = event.created_at;
  if (!isActive(lock, t))
    fail(c, `event ${event.id}: renewed lock ${lock.id} (${lock.owner} ${lock.pattern}) that was not active at ${t} (expiry ${lock.expiresAt}, released ${JSON.stringify(lock.released)})`);
  // The log's own word (detail.mode, detail.expires_at, detail.previous_mode) is checked against the
  // harness's tag and TTL, and wins where the tag says nothing (a renewal by `renew`).
  const logged = renewalOf(event);
  if (logged.mode && tag?.mode && logged.mode !== tag.mode) fail(c, `event ${event.id}: renewed records mode ${logged.mode}, the reserve asked for ${tag.mode}`);
  const mode = logged.mode ?? tag?.mode;
  if (logged.previousMode && logged.previousMode !== lock.mode) fail(c, `event ${event.id}: renewed records previous mode ${logged.previousMode}, the replay says ${lock.mode}`);
  if (mode && mode !== lock.mode) {
    if (logged.mode && !logged.previousMode) fail(c, `event ${event.id}: renewal switched ${lock.id} from ${lock.mode} to ${mode} without recording previous_mode`);
    lock.mode = mode;
    lock.modeChanges.push({ at: t, mode });
    bump(c, 'mode_switches');
  } else if (logged.previousMode) fail(c, `event ${event.id}: renewed records a switch from ${logged.previousMode} but the mode stayed ${lock.mode}`);
  const expected = t + ttlOf(c, lock.owner);
  if (logged.expiresAt !== undefined && logged.expiresAt !== expected) fail(c, `event ${event.id}: renewed records expiry ${logged.expiresAt}, the TTL gives ${expected}`);
  lock.expiresAt = t + ttlOf(c, lock.owner);
  lock.renewals.push(t);
  replay.live.add(lock);
  // A renewal by `renew` (untagged) skips the lock-delay rule: it is not a new grant.
  checkGrant(c, replay, event, lock, tag !== null);
}

function applyRelease(c: Checker, event: EventRow, lock: ModelLock | undefined): void {
  if (!lock) return fail(c, `event ${event.id}: ${event.type} unknown lock ${event.lock_id}`);
  const t = event.created_at;
  if (lock.released) fail(c, `event ${event.id}: lock ${lock.id} ${event.type} after it was already ${lock.released.type}`);
  if (event.type === 'expired' && lock.expiresAt > t) fail(c, `event ${event.id}: lock ${lock.id} marked expired at ${t}, before its expiry ${lock.expiresAt}`);
  lock.released = { type: event.type, at: t };
}

// A conflict event names a lock that bound at that moment, in the state it records, and could conflict.
function checkConflictEvent(c: Checker, event: EventRow, lock: ModelLock | undefined): void {
  if (!lock) return fail(c, `event ${event.id}: conflict with unknown lock ${event.lock_id}`);
  const t = event.created_at;
  const detail = parseJson(event.detail ?? '') ?? {};
  const state = bindingState(c, lock, t);
  if (state === null)
    fail(
      c,
      `event ${event.id}: ${event.owner} was refused ${event.pattern} because of ${lock.id} (${lock.owner} ${lock.pattern}), which did not bind at ${t} (expiry ${lock.expiresAt}, released ${JSON.stringify(lock.released)})`,
    );
  else if (detail.state && detail.state !== state) fail(c, `event ${event.id}: conflict state ${detail.state}, the model says ${state}`);
  if (lock.owner === event.owner || !overlap(c, lock.pattern, event.pattern ?? ''))
    fail(c, `event ${event.id}: refused ${event.owner} ${event.pattern} because of ${lock.owner} ${lock.pattern}, which cannot conflict`);
}

// At a grant (or a renewal) at t: no other owner's conflicting lock is active; at a reserve, none is
// in its lock-delay either.
function checkGrant(c: Checker, replay: Replay, event: EventRow, lock: ModelLock, reserveRule: boolean): void {
  const t = event.created_at;
  for (const other of replay.live) {
    if (other.id === lock.id || !blocks(c, other, lock)) continue;
    const state = bindingState(c, other, t);
    if (state === 'active') {
      fail(
        c,
        `event ${event.id}: DOUBLE GRANT at ${t}: ${lock.owner} ${lock.mode} ${lock.pattern} (${lock.id}) while ${other.owner} held ${other.mode} ${other.pattern} (${other.id}, expiry ${other.expiresAt})`,
      );
      bump(c, 'double_grants');
    } else if (state === 'lock_delay' && reserveRule) {
      fail(
        c,
        `event ${event.id}: LOCK-DELAY broken at ${t}: ${lock.owner} got ${lock.pattern} (${lock.id}) within the delay of ${other.owner}'s lapsed ${other.pattern} (${other.id}, expiry ${other.expiresAt})`,
      );
    }
  }
}

// ---- the locks table ----------------------------------------------------------------------------------

// The locks table agrees with the replay: every row whole and matching, and each fencing token the id of
// the event that assigned it, so tokens strictly increase in grant order and each belongs to a committed grant.
function checkTable(c: Checker, replay: Replay): void {
  const rows = new Map(c.history.locks.map((row) => [row.id, row]));
  for (const row of c.history.locks) if (!replay.model.has(row.id)) fail(c, `lock row ${row.id} has no reserved event`);
  for (const lock of replay.model.values()) {
    const row = rows.get(lock.id);
    if (!row) {
      fail(c, `lock ${lock.id} (${lock.owner} ${lock.pattern}) has events but no row: a committed grant is missing`);
      continue;
    }
    if (row.owner !== lock.owner || row.pattern !== lock.pattern) fail(c, `lock ${lock.id}: row says ${row.owner} ${row.pattern}, events say ${lock.owner} ${lock.pattern}`);
    if (row.mode !== lock.mode) fail(c, `lock ${lock.id}: row mode ${row.mode}, replay says ${lock.mode}`);
    if (row.expires_at !== lock.expiresAt) fail(c, `lock ${lock.id}: row expires_at ${row.expires_at}, replay says ${lock.expiresAt}`);
    if (row.ttl_ms !== ttlOf(c, lock.owner)) fail(c, `lock ${lock.id}: ttl_ms ${row.ttl_ms}, expected ${ttlOf(c, lock.owner)}`);
    if ((row.released_at ?? null) !== (lock.released?.at ?? null)) fail(c, `lock ${lock.id}: released_at ${row.released_at}, replay says ${lock.released?.at ?? null}`);
    if (lock.released && row.release_reason !== RELEASE_TYPES[lock.released.type]) fail(c, `lock ${lock.id}: release_reason ${row.release_reason} after a ${lock.released.type} event`);
  }
  for (const id of replay.grantOrder) {
    const token = rows.get(id)?.token;
    if (token !== undefined && token !== replay.tokenEvents.get(id)) fail(c, `fencing token of ${id} is ${token}, not the id of the event that assigned it (${replay.tokenEvents.get(id)})`);
  }
}

// ---- the invocations ----------------------------------------------------------------------------------

// Lookups the per-invocation checks share, built once.
interface InvocationIndex {
  byStart: ModelLock[];
  grantTimes: number[];
  invocations: Map<number, Invocation>;
  maxTtl: number;
  rows: Map<string, LockRow>;
}

// Each invocation exited as documented and printed what the database shows it did.
function checkInvocations(c: Checker, replay: Replay): void {
  const byStart = [...replay.model.values()].sort((a, b) => a.grantedAt - b.grantedAt);
  const index: InvocationIndex = {
    byStart,
    grantTimes: byStart.map((lock) => lock.grantedAt),
    invocations: new Map(c.history.invocations.map((inv) => [inv.id, inv])),
    maxTtl: Math.max(...Object.values(c.history.ttlByOwner)),
    rows: new Map(c.history.locks.map((row) => [row.id, row])),
  };
  for (const inv of c.history.invocations) checkInvocation(c, replay, index, inv);
}

function checkInvocation(c: Checker, replay: Replay, index: InvocationIndex, inv: Invocation): void {
  bump(c, 'ops');
  bump(c, `ops.${inv.op}`);
  if (inv.killed) bump(c, 'killed');
  if (inv.stopped) bump(c, 'stopped');
  const events = replay.tagged.get(inv.id) ?? [];
  if (inv.killed && events.length > 0) bump(c, 'killed_after_commit');
  if (inv.killed && inv.exitCode === null) return checkKilledReserve(c, inv, events);
  if (inv.outage) bump(c, 'outage');
  if (inv.outage && (inv.exitCode === 69 || inv.exitCode === 75)) {
    bump(c, inv.exitCode === 69 ? 'outage_unavailable' : 'outage_busy');
    return checkKilledReserve(c, inv, events);
  }
  if (inv.exitCode === null || !ALLOWED_EXITS.has(inv.exitCode))
    return fail(c, `invocation ${inv.id} (${inv.args.join(' ')}): exit ${inv.exitCode} signal ${inv.signal}: ${inv.stderr.trim().slice(0, 300)}`);
  if (inv.exitCode === 75) bump(c, 'busy');
  const json = parseJson(inv.stdout);
  if (json === undefined) return fail(c, `invocation ${inv.id} (${inv.args.join(' ')}): stdout is not one JSON document: ${inv.stdout.slice(0, 200)}`);
  const released = inv.op === 'release' || inv.op === 'force-release';
  if (inv.op === 'reserve') checkReserve(c, replay, index, inv, json, events);
  else if (inv.op === 'renew' && inv.exitCode === 0) checkRenew(c, replay, inv, json);
  else if (released && inv.exitCode === 0) checkRelease(c, replay, inv, json, events);
  else if (inv.op === 'check' && (inv.exitCode === 0 || inv.exitCode === 1)) checkCheck(c, replay, index, inv, json);
  if (released && inv.exitCode !== 0 && events.length > 0) fail(c, `invocation ${inv.id}: a failed release wrote ${events.length} events`);
}

// A killed reserve committed all its grants or none.
function checkKilledReserve(c: Checker, inv: Invocation, events: EventRow[]): void {
  const asked = new Set(inv.patterns).size;
  if (inv.op === 'reserve' && events.length !== 0 && events.length !== asked)
    fail(c, `invocation ${inv.id} (killed reserve of ${inv.patterns.join(' ')}) left ${events.length} of ${asked} locks: not atomic`);
}

function checkReserve(c: Checker, replay: Replay, index: InvocationIndex, inv: Invocation, json: any, events: EventRow[]): void {
  if (inv.exitCode !== 0) return checkRefusedReserve(c, replay, inv, json, events);
  const expected = new Set(inv.patterns).size;
  const locks: any[] = json.locks ?? [];
  if (locks.length !== expected || events.length !== expected)
    fail(c, `invocation ${inv.id}: reserve of ${expected} patterns printed ${locks.length} locks and committed ${events.length} grant events`);
  for (const printed of locks) {
    const lock = replay.model.get(printed.id);
    const event = events.find((e) => e.lock_id === printed.id);
    if (!lock || !event) {
      fail(c, `invocation ${inv.id}: printed granted lock ${printed.id} that is missing from the database`);
      continue;
    }
    const row = index.rows.get(printed.id);
    if (row && row.token !== printed.token) fail(c, `invocation ${inv.id}: printed token ${printed.token} for ${printed.id}, the table has ${row.token}`);
    if (printed.owner !== inv.owner || printed.mode !== (inv.shared ? 'shared' : 'exclusive'))
      fail(c, `invocation ${inv.id}: printed ${printed.owner} ${printed.mode} for a ${inv.owner} ${inv.shared ? 'shared' : 'exclusive'} reserve`);
    if (Date.parse(printed.expires_at) !== event.created_at + ttlOf(c, lock.owner))
      fail(c, `invocation ${inv.id}: printed expiry ${printed.expires_at} for ${printed.id}, the grant committed at ${event.created_at}`);
  }
}

// A refused reserve wrote no grant, and each conflict it printed names a lock and its owner as replayed.
function checkRefusedReserve(c: Checker, replay: Replay, inv: Invocation, json: any, events: EventRow[]): void {
  if (inv.exitCode === 1) bump(c, 'conflicts');
  if (events.length > 0) fail(c, `invocation ${inv.id}: reserve failed (exit ${inv.exitCode}) but wrote ${events.length} grant events`);
  if (inv.exitCode !== 1) return;
  for (const conflict of json.error?.conflicts ?? []) {
    const lock = replay.model.get(conflict.held?.id);
    if (!lock) fail(c, `invocation ${inv.id}: reported a conflict with unknown lock ${conflict.held?.id}`);
    else if (lock.owner !== conflict.held.owner && lock.grantedAt <= inv.end) fail(c, `invocation ${inv.id}: conflict names owner ${conflict.held.owner} for ${lock.id}, replay says ${lock.owner}`);
  }
}

function checkRenew(c: Checker, replay: Replay, inv: Invocation, json: any): void {
  for (const printed of json.locks ?? []) {
    const lock = replay.model.get(printed.id);
    const at = Date.parse(printed.expires_at) - ttlOf(c, printed.owner);
    if (!lock || !lock.renewals.includes(at)) fail(c, `invocation ${inv.id}: printed renewal of ${printed.id} to ${printed.expires_at} that has no renewed event`);
  }
}

function checkRelease(c: Checker, replay: Replay, inv: Invocation, json: any, events: EventRow[]): void {
  for (const printed of json.released ?? []) {
    const lock = replay.model.get(printed.id);
    if (!lock?.released || lock.released.at !== Date.parse(printed.released_at))
      fail(c, `invocation ${inv.id}: printed release of ${printed.id} at ${printed.released_at} that the events do not show`);
  }
  if (events.length !== (json.released ?? []).length) fail(c, `invocation ${inv.id}: printed ${(json.released ?? []).length} releases, committed ${events.length} release events`);
}

// A check sees every lock granted before it started that stays active until after it ended, and
// reports only locks that exist, belong to someone else, overlap, and had not expired when it started.
function checkCheck(c: Checker, replay: Replay, index: InvocationIndex, inv: Invocation, json: any): void {
  const conflicts: any[] = json.conflicts ?? [];
  if (json.free !== (conflicts.length === 0) || (inv.exitCode === 0) !== json.free)
    fail(c, `invocation ${inv.id}: check says free=${json.free} with ${conflicts.length} conflicts and exit ${inv.exitCode}`);
  const reported = checkReportedConflicts(c, replay, inv, conflicts);
  checkCheckSawHeldLocks(c, index, inv, reported);
}

// Every conflict a check printed is a real lock that could conflict with what it asked for; returns their ids.
function checkReportedConflicts(c: Checker, replay: Replay, inv: Invocation, conflicts: any[]): Set<string> {
  const mode = inv.shared ? 'shared' : 'exclusive';
  const reported = new Set<string>();
  for (const conflict of conflicts) {
    const held = conflict.held ?? {};
    reported.add(held.id);
    const lock = replay.model.get(held.id);
    if (!lock) {
      fail(c, `invocation ${inv.id}: check reported unknown lock ${held.id}`);
      continue;
    }
    if (lock.grantedAt > inv.end) fail(c, `invocation ${inv.id}: check reported ${lock.id}, granted only after the check ended`);
    // Any mode the lock had up to the end of the check (a re-reserve may have changed it meanwhile).
    const modes = new Set([lock.grantMode, ...lock.modeChanges.filter((change) => change.at <= inv.end).map((change) => change.mode)]);
    if (held.owner === inv.owner || ![...modes].some((m) => inv.patterns.some((p) => blocks(c, { ...lock, mode: m }, { owner: inv.owner ?? '', mode, pattern: p }))))
      fail(c, `invocation ${inv.id}: check reported ${lock.id} (${lock.owner} ${lock.mode} ${lock.pattern}), which cannot conflict with ${inv.owner} ${mode} ${inv.patterns.join(' ')}`);
    if (conflict.state === 'active' && Date.parse(held.expires_at) <= inv.start)
      fail(c, `invocation ${inv.id}: check reported ${lock.id} as active though it expired at ${held.expires_at}, before the check started`);
  }
  return reported;
}

// Visibility: every conflicting lock granted (and acknowledged) before the check started, and neither
// released, expired nor changed in mode before it ended, is among the reported ones.
function checkCheckSawHeldLocks(c: Checker, index: InvocationIndex, inv: Invocation, reported: Set<string>): void {
  const mode = inv.shared ? 'shared' : 'exclusive';
  const { byStart } = index;
  for (let i = lowerBound(index.grantTimes, inv.end - index.maxTtl); i < byStart.length && byStart[i]!.grantedAt <= inv.start; i++) {
    const lock = byStart[i]!;
    const grant = lock.grantInvocation !== null ? index.invocations.get(lock.grantInvocation) : undefined;
    if (!grant || grant.end >= inv.start || lock.grantExpiry <= inv.end) continue;
    if (lock.released && lock.released.at <= inv.end) continue;
    if (lock.modeChanges.some((change) => change.at <= inv.end)) continue;
    if (!inv.patterns.some((p) => blocks(c, { ...lock, mode: lock.grantMode }, { owner: inv.owner ?? '', mode, pattern: p }))) continue;
    bump(c, 'visibility_checked');
    if (!reported.has(lock.id))
      fail(
        c,
        `invocation ${inv.id}: check by ${inv.owner} of ${inv.patterns.join(' ')} did not see ${lock.owner}'s ${lock.mode} ${lock.pattern} (${lock.id}), granted before it started and active until after it ended`,
      );
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
