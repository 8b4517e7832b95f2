// Bounded write transactions (README, "Guarantees"): no accepted call holds the write lock long enough to
// make a concurrent hook fail open, calls past the work limits are refused with TOO_COMPLEX before any
// work, and `--wait` waits out a busy database as well as a held lock.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WORK_LIMITS } from '../../src/core/conflict';
import { claudeEdit } from '../hooks/fixtures';
import { coord, ic, makeTempRepo, type RunResult, type TempRepo } from '../support/cli';
import { findDoubleGrants, reserveTag } from '../support/replay';

let repo: TempRepo;
beforeEach(() => {
  repo = makeTempRepo('ic-bounded-');
});
afterEach(() => repo.cleanup());

const as = (owner: string, env: Record<string, string> = {}) => ({ env: { IC_OWNER: owner, ...env } });
const range = (n: number, name: (i: number) => string) => Array.from({ length: n }, (_, i) => name(i));
const SESSION = '5d1c7e2a-0b7d-4e5f-8a1b-2c3d4e5f6a7b';

// Exactly one JSON document on stdout and no stack trace anywhere.
function expectCleanReply(result: RunResult): void {
  expect(() => JSON.parse(result.stdout)).not.toThrow();
  expect(result.stdout.trim().split('\n').length).toBe(1);
  expect(result.stdout + result.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/);
}

// Everything a failed call must leave alone: every lock row and every event.
async function stored(): Promise<unknown> {
  const locks = (await coord(repo, ['list'])).json.locks;
  const events = (await coord(repo, ['events', '--limit', '10000'])).json.events;
  return { locks, events };
}

async function timed<T>(run: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await run();
  return { value, ms: performance.now() - started };
}

// Runs pre-edit hooks for a file carol holds, one after another, for as long as `call` runs (at least 3).
// Their busy timeout is 1 s: a hook that had to wait for a long write transaction would fail open.
async function besideHooks(call: Promise<RunResult>): Promise<{ value: RunResult; hooks: { value: RunResult; ms: number }[] }> {
  const env = { IC_OWNER: '', IC_BUSY_TIMEOUT: '1s' };
  const hook = () => timed(() => ic(repo, ['coord', 'hook', 'claude-pre-edit'], { input: claudeEdit(repo.dir, SESSION, join(repo.dir, 'held/file.ts')), env }));
  const hooks: { value: RunResult; ms: number }[] = [];
  let finished = false;
  void call.finally(() => (finished = true));
  while (!finished || hooks.length < 3) hooks.push(await hook());
  return { value: await call, hooks };
}

// Every hook was answered with a deny naming the holder: never a fail-open notice. The hook's own clocks say it
// was not held up (a wall-clock bound would be missed on a loaded machine): a hook kept waiting for the write
// lock past its 1 s busy timeout, or past its budget, answers by the fail policy (allowed, with a notice)
// instead of denying.
function expectHooksAnswered(hooks: { value: RunResult; ms: number }[]): void {
  for (const { value } of hooks) {
    expect(value.exitCode).toBe(0);
    const out = JSON.parse(value.stdout);
    expect(out.hookSpecificOutput.permissionDecision).toBe('deny');
    expect(out.hookSpecificOutput.permissionDecisionReason).toContain('carol');
    expect(out.systemMessage ?? '').not.toMatch(/allowed without a reservation|IC_HOOK_TIMEOUT|IC_BUSY_TIMEOUT/);
  }
}

// What a call says of its write transactions with IC_TIMING=1 (its last one; zeros when it ran none).
function writeTimings(result: RunResult): { lock_wait_ms: number; held_ms: number } {
  const line = /^ic-timing (.*)$/m.exec(result.stderr);
  expect(line, 'no ic-timing line on stderr').not.toBeNull();
  return JSON.parse(line![1]!);
}

describe('a reserve at the pattern limit beside a concurrent hook', () => {
  it('answers the hook (deny, never a fail-open notice) while the big call runs', async () => {
    const n = WORK_LIMITS.patterns;
    expect((await coord(repo, ['reserve', ...range(n, (i) => `d${i}/**`)], as('alice'))).exitCode).toBe(0);
    expect((await coord(repo, ['reserve', 'held/file.ts'], as('carol'))).exitCode).toBe(0);
    const before = await stored();
    const { value: refused, hooks } = await besideHooks(coord(repo, ['reserve', ...range(n, (i) => `d${i}/x.ts`)], as('bob')));
    expect(refused.exitCode).toBe(1);
    expect(refused.json.error.code).toBe('CONFLICT');
    expect(refused.json.error.conflicts).toHaveLength(n);
    expectCleanReply(refused);
    expectHooksAnswered(hooks);
    // Nothing was granted to bob; the refusal recorded at most the documented number of conflict events.
    const after = (await stored()) as { locks: any[]; events: any[] };
    expect(after.locks).toEqual((before as any).locks);
    const conflictEvents = after.events.filter((e) => e.type === 'conflict' && e.owner === 'bob');
    expect(conflictEvents.length).toBeGreaterThan(0);
    expect(conflictEvents.length).toBeLessThanOrEqual(100);
  }, 120_000);

  it('refuses 6,000 patterns at once with TOO_COMPLEX before any work, changing nothing', async () => {
    expect((await coord(repo, ['reserve', ...range(WORK_LIMITS.patterns, (i) => `d${i}/**`)], as('alice'))).exitCode).toBe(0);
    expect((await coord(repo, ['reserve', 'held/file.ts'], as('carol'))).exitCode).toBe(0);
    const before = await stored();
    const call = coord(repo, ['reserve', ...range(6_000, (i) => `d${i}/x.ts`)], as('bob', { IC_TIMING: '1' }));
    const { value: result, hooks } = await besideHooks(call);
    expectHooksAnswered(hooks);
    expect(result.exitCode).toBe(65);
    expect(result.json.error).toMatchObject({ code: 'TOO_COMPLEX', limit: 'patterns', value: 6_000, max: WORK_LIMITS.patterns });
    expect(result.json.error.message).toMatch(/limit patterns is/);
    expectCleanReply(result);
    // Refused up front, before any work: it never took the write lock (the report's call held it 78 s).
    expect(writeTimings(result)).toMatchObject({ lock_wait_ms: 0, held_ms: 0 });
    // The hooks recorded their own conflict events; bob's call wrote nothing.
    const after = (await stored()) as { locks: any[]; events: any[] };
    expect(after.locks).toEqual((before as any).locks);
    expect(after.events.filter((e) => e.owner === 'bob')).toEqual([]);
    const checked = await coord(repo, ['check', ...range(WORK_LIMITS.patterns + 1, (i) => `d${i}/x`)], as('bob'));
    expect(checked.exitCode).toBe(65);
    expect(checked.json.error.limit).toBe('patterns');
    expectCleanReply(checked);
  }, 60_000);

  it('refuses a call that would compare too many pairs, with TOO_COMPLEX naming the limit', async () => {
    // Patterns with no literal directory compare with every held lock of the scope: 400 × 300 pairs.
    expect((await coord(repo, ['reserve', ...range(400, (i) => `*-a${i}.txt`)], as('alice'))).exitCode).toBe(0);
    const before = await stored();
    const patterns = range(300, (i) => `*-b${i}.md`);
    const result = await coord(repo, ['reserve', ...patterns], as('bob'));
    expect(result.exitCode).toBe(65);
    expect(result.json.error).toMatchObject({ code: 'TOO_COMPLEX', limit: 'comparisons', value: 120_000, max: WORK_LIMITS.comparisons });
    expectCleanReply(result);
    expect(await stored()).toEqual(before);
    const checked = await coord(repo, ['check', ...patterns], as('bob'));
    expect(checked.exitCode).toBe(65);
    expect(checked.json.error.limit).toBe('comparisons');
    expect(await stored()).toEqual(before);
  }, 60_000);
});

describe('--wait covers a busy database', () => {
  // Holds the database's write lock from this process, like a slow writer: for `ms`, or until `release()`.
  // `released` says whether it is over: a call that answered while the lock was still held did not wait it out,
  // however slowly a loaded machine started that call.
  function holdWriteLock(ms: number): { done: Promise<void>; released: () => boolean; release: () => void } {
    const db = new Database(repo.db);
    db.exec('BEGIN IMMEDIATE');
    let over = false;
    let end = () => {};
    const done = new Promise<void>((resolve) => {
      const timer = setTimeout(() => end(), ms);
      end = () => {
        if (over) return;
        over = true;
        clearTimeout(timer);
        db.exec('ROLLBACK');
        db.close();
        resolve();
      };
    });
    return { done, released: () => over, release: () => end() };
  }

  it('waits through a write lock held longer than the busy timeout and is granted', async () => {
    expect((await coord(repo, ['reserve', 'a.ts'], as('alice'))).exitCode).toBe(0);
    const held = holdWriteLock(2_500);
    const { value: result, ms } = await timed(() => coord(repo, ['reserve', 'b.ts', '--wait', '20s'], as('bob', { IC_BUSY_TIMEOUT: '300ms' })));
    await held.done;
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    expect(result.json.locks.map((l: any) => l.pattern)).toEqual(['b.ts']);
    expectCleanReply(result);
    expect(ms).toBeGreaterThan(2_000);
  }, 60_000);

  it('answers TIMEOUT (exit 1, busy: true), not BUSY, when the wait runs out first; nothing changes', async () => {
    expect((await coord(repo, ['reserve', 'a.ts'], as('alice'))).exitCode).toBe(0);
    const before = await stored();
    // Held far past both waits: a call that answers while it is still held was bounded by its wait, not by the lock.
    const held = holdWriteLock(40_000);
    const { value: result, ms } = await timed(() => coord(repo, ['reserve', 'b.ts', '--wait', '1s'], as('bob', { IC_BUSY_TIMEOUT: '30s' })));
    const named = await coord(repo, ['lock', 'deploy', '--wait', '500ms'], as('bob'));
    expect(held.released()).toBe(false); // the wait bounds the busy timeout too (30 s here)
    held.release();
    expect(result.exitCode).toBe(1);
    expect(result.json.error).toMatchObject({ code: 'TIMEOUT', busy: true, conflicts: [] });
    expectCleanReply(result);
    expect(ms).toBeGreaterThan(900);
    expect(named.exitCode).toBe(1);
    expect(named.json.error).toMatchObject({ code: 'TIMEOUT', busy: true });
    expect(await stored()).toEqual(before);
  }, 60_000);

  it('without --wait still answers BUSY (75) past the busy timeout', async () => {
    expect((await coord(repo, ['reserve', 'a.ts'], as('alice'))).exitCode).toBe(0);
    const held = holdWriteLock(30_000);
    const result = await coord(repo, ['reserve', 'b.ts'], as('bob', { IC_BUSY_TIMEOUT: '200ms' }));
    expect(held.released()).toBe(false);
    held.release();
    expect(result.exitCode).toBe(75);
    expect(result.json.error.code).toBe('BUSY');
    expectCleanReply(result);
  }, 30_000);
});

describe('many multi-pattern reserves at once (the snapshot path)', () => {
  const POOL = ['src/**', 'src/a.ts', 'src/*.ts', 'src/{a,b}.ts', '**/*.ts', 'docs/**', 'src/b.ts', 'lib/[ab]/x.ts', 'lib/**', '*.md', 'docs/x.md', 'lib/a/x.ts'];

  it('never grants two conflicting locks', async () => {
    let seed = 11;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const results: RunResult[] = [];
    await Promise.all(
      Array.from({ length: 12 }, async (_, worker) => {
        for (let round = 0; round < 4; round++) {
          const count = worker % 3 === 0 ? 1 : 2 + Math.floor(random() * 4); // literal singles take the in-lock path
          const patterns = [...new Set(Array.from({ length: count }, () => POOL[Math.floor(random() * POOL.length)]!))];
          const shared = random() < 0.25 ? ['--shared'] : [];
          const owner = `agent-${worker}`;
          // Tagged with the mode, so the checker follows a re-reserve that changes it.
          const tag = reserveTag(worker * 10 + round, shared.length > 0);
          const result = await coord(repo, ['reserve', ...patterns, ...shared, '--reason', tag], as(owner));
          results.push(result);
          if (result.exitCode === 0 && random() < 0.5) results.push(await coord(repo, ['release', '--all'], as(owner)));
        }
      }),
    );
    for (const result of results) {
      expect([0, 1], result.stdout + result.stderr).toContain(result.exitCode);
      expectCleanReply(result);
    }
    expect(results.some((r) => r.json.locks)).toBe(true);
    const events = (await coord(repo, ['events', '--limit', '10000'])).json.events;
    const locks = (await coord(repo, ['list'])).json.locks;
    expect(findDoubleGrants(events, new Map<string, string>(locks.map((l: any) => [l.id, l.mode])))).toEqual([]);
  }, 180_000);
});
