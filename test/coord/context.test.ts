import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { busyTimeoutFromEnv, clockFromEnv, createContext, lockDelayFromEnv, ownScope, readTransaction, resolveProject, TEST_CLOCK_SWITCH, writeTransaction } from '../../src/coord/context';
import { systemClock } from '../../src/core/time';
import { insertEvent } from '../../src/store/events';
import { reserveOnce } from '../../src/coord/reserve';
import { T0 } from '../support/store';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ic-context-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('settings from the environment', () => {
  it('moves the clock with IC_NOW only beside the test switch', () => {
    expect(clockFromEnv({ IC_NOW: '2026-01-01T00:00:00Z' })).toBe(systemClock);
    const moved = clockFromEnv({ IC_NOW: String(T0), [TEST_CLOCK_SWITCH]: '1' })();
    expect(moved).toBeGreaterThanOrEqual(T0);
    expect(moved).toBeLessThan(T0 + 60_000);
    expect(() => clockFromEnv({ IC_NOW: 'soon', [TEST_CLOCK_SWITCH]: '1' })).toThrow(/not a time/);
  });

  it('reads IC_LOCK_DELAY and IC_BUSY_TIMEOUT as durations, with defaults and bounds', () => {
    expect(lockDelayFromEnv({})).toBe(60_000);
    expect(lockDelayFromEnv({ IC_LOCK_DELAY: '0' })).toBe(0);
    expect(lockDelayFromEnv({ IC_LOCK_DELAY: '2m' })).toBe(120_000);
    expect(busyTimeoutFromEnv({ IC_BUSY_TIMEOUT: '300ms' })).toBe(300);
    expect(() => busyTimeoutFromEnv({ IC_BUSY_TIMEOUT: '1h' })).toThrow();
    expect(() => lockDelayFromEnv({ IC_LOCK_DELAY: 'later' })).toThrow();
  });
});

describe('the project', () => {
  it('outside git is the nearest ancestor holding .ic/, else the directory itself', () => {
    const nested = join(dir, 'a', 'b');
    mkdirSync(nested, { recursive: true });
    expect(resolveProject(nested).projectRoot).toMatch(/a\/b$/);
    mkdirSync(join(dir, '.ic'));
    const project = resolveProject(nested);
    expect(project.projectRoot).not.toMatch(/a\/b$/);
    expect(project.scope).toBe(project.projectRoot);
  });

  it('refuses a --scope that is not an existing directory', () => {
    expect(() => resolveProject(dir, 'missing')).toThrow(/not an existing directory/);
  });
});

describe('transactions', () => {
  it('never record a time before the newest event, so a clock stepped back cannot disorder the log', async () => {
    let now = T0;
    const ctx = await createContext({ cwd: dir, env: { IC_DB: join(dir, 'test.db') }, write: true, clock: () => now });
    try {
      await writeTransaction(ctx, ownScope(ctx), async (t) => insertEvent(ctx.db, { type: 'reserved', lock_id: 'l', scope: 's', owner: 'o', pattern: 'p', reason: null, created_at: t }));
      now = T0 - 5_000;
      expect(await writeTransaction(ctx, ownScope(ctx), async (t) => t)).toBe(T0);
      expect(await readTransaction(ctx, async (t) => t)).toBe(T0 - 5_000);
    } finally {
      ctx.db.close();
    }
  });

  it('act at one time within a write: nested writes and reads inside it see its clock, and a big reserve inside one is granted', async () => {
    let now = T0;
    const ticking = () => now++; // every reading of the clock is a millisecond later, as on a loaded machine
    const ctx = await createContext({ cwd: dir, env: { IC_DB: join(dir, 'test.db') }, write: true, clock: ticking });
    try {
      const seen = await writeTransaction(ctx, ownScope(ctx), async (outer) => ({
        outer,
        nested: await writeTransaction(ctx, ownScope(ctx), async (t) => t),
        read: await readTransaction(ctx, async (t) => t),
        // More patterns than the write lock decides at once: decided from a snapshot, then checked in a nested write.
        reserve: await reserveOnce(ctx, { type: 'file', patterns: ['a/**', 'b/**', 'c/**', 'd/**', 'e/**'], owner: 'alice', mode: 'exclusive', ttlMs: 60_000, reason: null }),
      }));
      expect(seen.nested).toBe(seen.outer);
      expect(seen.read).toBe(seen.outer);
      expect(seen.reserve.granted).toBe(true);
      expect(await writeTransaction(ctx, ownScope(ctx), async (t) => t)).toBeGreaterThan(seen.outer); // the next transaction reads the clock again
    } finally {
      ctx.db.close();
    }
  });

  it('a read of a missing explicit database is refused (69), never read as empty', async () => {
    await expect(createContext({ cwd: dir, env: { IC_DB: join(dir, 'none.db') }, write: false })).rejects.toThrow(/no database at/);
  });

  it('read a missing default database as empty without creating it', async () => {
    mkdirSync(join(dir, '.ic'));
    const ctx = await createContext({ cwd: dir, env: {}, write: false });
    try {
      expect(ctx.dbMissing).toBe(true);
    } finally {
      ctx.db.close();
    }
  });
});
