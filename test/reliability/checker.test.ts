// The stress checker must catch what it claims to catch: synthetic histories with one planted fault each.
import { describe, expect, it } from 'vitest';
import { checkHistory, findDoubleGrants, reserveTag, type EventRow, type History, type Invocation, type LockRow } from '../support/replay';

const TTL = 1000;
let eventId = 0;
const ev = (type: string, lock: string, owner: string, pattern: string, at: number, reason: string | null = null, detail: unknown = null): EventRow => ({
  id: ++eventId,
  type,
  lock_id: lock,
  scope: 's',
  owner,
  pattern,
  reason,
  created_at: at,
  detail: detail ? JSON.stringify(detail) : null,
});
const row = (id: string, token: number, owner: string, pattern: string, at: number, released: [number, string] | null = null, mode = 'exclusive', expires = at + TTL): LockRow => ({
  id,
  token,
  type: 'file',
  scope: 's',
  pattern,
  owner,
  mode,
  reason: null,
  created_at: at,
  expires_at: expires,
  ttl_ms: TTL,
  released_at: released?.[0] ?? null,
  release_reason: released?.[1] ?? null,
});
const inv = (id: number, op: Invocation['op'], owner: string, patterns: string[], start: number, end: number, exitCode: number | null, json: unknown, extra: Partial<Invocation> = {}): Invocation => ({
  id,
  op,
  args: [],
  owner,
  patterns,
  shared: false,
  start,
  end,
  exitCode,
  signal: exitCode === null ? 'SIGKILL' : null,
  killed: exitCode === null,
  stopped: false,
  stdout: json === undefined ? '' : JSON.stringify(json),
  stderr: '',
  ...extra,
});
// Events are numbered in the order given, as SQLite would; a lock's token is the id of its reserved event.
const history = (events: EventRow[], locks: LockRow[], invocations: Invocation[] = [], lockDelayMs = 0): History => ({
  events: events.map((event, index) => ({ ...event, id: index + 1 })),
  locks,
  invocations,
  ttlByOwner: { a: TTL, b: TTL },
  lockDelayMs,
});

describe('checkHistory', () => {
  it('accepts a clean history, including a grant after the holder expired without any sweep', () => {
    const h = history(
      [
        ev('reserved', 'l1', 'a', 'src/**', 0, reserveTag(1, false)),
        ev('conflict', 'l1', 'b', 'src/a.ts', 500, null, { state: 'active' }),
        ev('reserved', 'l2', 'b', 'src/a.ts', 1000, reserveTag(2, false)),
      ],
      [row('l1', 1, 'a', 'src/**', 0), row('l2', 3, 'b', 'src/a.ts', 1000)],
    );
    expect(checkHistory(h).violations).toEqual([]);
  });

  it('catches a double grant, and a grant inside the lock-delay', () => {
    const events = [ev('reserved', 'l1', 'a', 'src/**', 0, reserveTag(1, false)), ev('reserved', 'l2', 'b', 'src/{a,b}.ts', 999, reserveTag(2, false))];
    const locks = [row('l1', 1, 'a', 'src/**', 0), row('l2', 2, 'b', 'src/{a,b}.ts', 999)];
    expect(checkHistory(history(events, locks)).violations.join()).toMatch(/DOUBLE GRANT/);
    const late = [events[0]!, { ...events[1]!, created_at: 1500 }];
    expect(checkHistory(history(late, [locks[0]!, row('l2', 2, 'b', 'src/{a,b}.ts', 1500)])).violations).toEqual([]);
    expect(checkHistory(history(late, [locks[0]!, row('l2', 2, 'b', 'src/{a,b}.ts', 1500)], [], 1000)).violations.join()).toMatch(/LOCK-DELAY/);
  });

  it('catches tokens out of grant order, a refusal by a lock that did not bind, and an early expiry', () => {
    const events = [ev('reserved', 'l1', 'a', 'x', 0), ev('reserved', 'l2', 'b', 'y', 10), ev('conflict', 'l1', 'b', 'x', 2000, null, { state: 'active' }), ev('expired', 'l2', 'b', 'y', 20)];
    const report = checkHistory(history(events, [row('l1', 2, 'a', 'x', 0), row('l2', 1, 'b', 'y', 10, [20, 'expired'])]));
    expect(report.violations.join('\n')).toMatch(/fencing token/);
    expect(report.violations.join('\n')).toMatch(/did not bind/);
    expect(report.violations.join('\n')).toMatch(/before its expiry/);
  });

  it('catches a printed grant missing from the database, a half-applied reserve, and a check that missed a lock', () => {
    const events = [ev('reserved', 'l1', 'a', 'x', 100, reserveTag(1, false)), ev('reserved', 'l2', 'a', 'y', 300, reserveTag(2, false))];
    const locks = [row('l1', 1, 'a', 'x', 100), row('l2', 2, 'a', 'y', 300)];
    const printed = (id: string, pattern: string, at: number) => ({ id, token: 9, owner: 'a', mode: 'exclusive', pattern, expires_at: new Date(at + TTL).toISOString() });
    const invocations = [
      inv(1, 'reserve', 'a', ['x'], 0, 150, 0, { ok: true, locks: [printed('l1', 'x', 100), printed('zz', 'x', 100)] }),
      inv(2, 'reserve', 'a', ['y', 'z'], 200, 400, null, undefined),
      inv(3, 'check', 'b', ['x'], 200, 250, 0, { ok: true, free: true, conflicts: [] }),
    ];
    const text = checkHistory(history(events, locks, invocations)).violations.join('\n');
    expect(text).toMatch(/missing from the database/);
    expect(text).toMatch(/not atomic/);
    expect(text).toMatch(/did not see/);
  });

  it('judges a check by every mode the lock had meanwhile (shared, then exclusive, then shared again)', () => {
    const events = [ev('reserved', 'l1', 'a', 'x', 0, reserveTag(1, true)), ev('renewed', 'l1', 'a', 'x', 100, reserveTag(2, false)), ev('renewed', 'l1', 'a', 'x', 400, reserveTag(3, true))];
    const held = { id: 'l1', owner: 'a', pattern: 'x', mode: 'exclusive', expires_at: new Date(1100).toISOString() };
    const check = inv(4, 'check', 'b', ['x'], 150, 300, 1, { ok: true, free: false, conflicts: [{ held, state: 'active' }] }, { shared: true });
    expect(checkHistory(history(events, [row('l1', 1, 'a', 'x', 0, null, 'shared', 1400)], [check])).violations).toEqual([]);
    const early = inv(4, 'check', 'b', ['x'], 20, 60, 1, { ok: true, free: false, conflicts: [{ held, state: 'active' }] }, { shared: true });
    expect(checkHistory(history(events, [row('l1', 1, 'a', 'x', 0, null, 'shared', 1400)], [early])).violations.join()).toMatch(/cannot conflict/);
  });

  it('follows modes from the renewed events alone (no tags) and checks what they record', () => {
    // b holds x shared; a's shared x is renewed into exclusive in place: a double grant, seen from the log alone.
    const events = [
      ev('reserved', 'l1', 'a', 'x', 0, null),
      ev('reserved', 'l2', 'b', 'x', 10, null),
      ev('renewed', 'l1', 'a', 'x', 20, null, { mode: 'exclusive', previous_mode: 'shared', expires_at: 20 + TTL }),
    ];
    const modes = new Map([
      ['l1', 'shared'],
      ['l2', 'shared'],
    ]);
    const replayed = events.map((e, i) => ({ ...e, id: i + 1, detail: e.detail ? JSON.parse(e.detail) : null }));
    expect(findDoubleGrants(replayed, modes).join()).toMatch(/switched x to exclusive while b held shared x/);
    expect(findDoubleGrants(replayed.slice(0, 2), modes)).toEqual([]);
    // The full checker: a recorded expiry that disagrees with the TTL, and a switch without previous_mode.
    const wrong = [ev('reserved', 'l1', 'a', 'x', 0, reserveTag(1, true)), ev('renewed', 'l1', 'a', 'x', 20, null, { mode: 'exclusive', expires_at: 5 })];
    const text = checkHistory(history(wrong, [row('l1', 1, 'a', 'x', 0, null, 'exclusive', 20 + TTL)])).violations.join('\n');
    expect(text).toMatch(/records expiry 5/);
    expect(text).toMatch(/without recording previous_mode/);
    const right = [ev('reserved', 'l1', 'a', 'x', 0, reserveTag(1, true)), ev('renewed', 'l1', 'a', 'x', 20, null, { mode: 'exclusive', previous_mode: 'shared', expires_at: 20 + TTL })];
    expect(checkHistory(history(right, [row('l1', 1, 'a', 'x', 0, null, 'exclusive', 20 + TTL)])).violations).toEqual([]);
  });

  it('reads a silent renewal (no detail) as a possible switch: unknown before it, the final mode from it on', () => {
    // l1 granted shared, later re-reserved exclusive in place without a recorded mode; final mode exclusive.
    const shape = (events: EventRow[]) => events.map((e, i) => ({ ...e, id: i + 1, detail: e.detail ? JSON.parse(e.detail) : null }));
    const modes = new Map([
      ['l1', 'exclusive'],
      ['l2', 'shared'],
    ]);
    const sharedMeanwhile = shape([ev('reserved', 'l1', 'a', 'x', 0), ev('reserved', 'l2', 'b', 'x', 10), ev('released', 'l2', 'b', 'x', 20), ev('renewed', 'l1', 'a', 'x', 30)]);
    expect(findDoubleGrants(sharedMeanwhile, modes)).toEqual([]); // the final mode alone would call event 2 a double grant
    const stillHeld = shape([ev('reserved', 'l1', 'a', 'x', 0), ev('reserved', 'l2', 'b', 'x', 10), ev('renewed', 'l1', 'a', 'x', 30)]);
    expect(findDoubleGrants(stillHeld, modes).join()).toMatch(/event 3: a switched x to exclusive while b held shared x/);
  });
});

describe('findDoubleGrants', () => {
  const event = (id: number, type: string, lock: string, owner: string, pattern: string, reason: string | null = null) => ({
    id,
    type,
    lock_id: lock,
    scope: 's',
    owner,
    pattern,
    reason,
    detail: null,
  });

  it('reads modes from reserve tags, so a later change of mode is not read back into the grant', () => {
    const events = [
      event(1, 'reserved', 'l1', 'a', 'src/**', reserveTag(1, true)),
      event(2, 'reserved', 'l2', 'b', 'src/a.ts', reserveTag(2, true)),
      event(3, 'released', 'l1', 'a', 'src/**'),
      event(4, 'renewed', 'l2', 'b', 'src/a.ts', reserveTag(3, false)),
    ];
    // Both locks end exclusive in the table; by their tags they were shared when both were held.
    expect(
      findDoubleGrants(
        events,
        new Map([
          ['l1', 'exclusive'],
          ['l2', 'exclusive'],
        ]),
      ),
    ).toEqual([]);
  });

  it('catches a change to exclusive while another owner holds an overlapping lock', () => {
    const events = [
      event(1, 'reserved', 'l1', 'a', 'src/**', reserveTag(1, true)),
      event(2, 'reserved', 'l2', 'b', 'src/a.ts', reserveTag(2, true)),
      event(3, 'renewed', 'l2', 'b', 'src/a.ts', reserveTag(3, false)),
    ];
    expect(findDoubleGrants(events, new Map())).toEqual(['event 3: b switched src/a.ts to exclusive while a held shared src/**']);
  });
});
