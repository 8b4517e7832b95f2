import { describe, expect, it } from 'vitest';
import type { Conflict } from '../../src/core/conflict';
import type { Lock } from '../../src/core/lock';
import { decideEdit, decideFailure, denyReason } from '../../src/hooks/decision';
import { guardReport, heldByOthers } from '../../src/hooks/git-guard';
import { preToolUseOutput } from '../../src/hooks/output';
import { singleQuoted } from '../../src/core/shell';
import { IcError } from '../../src/core/errors';

const now = Date.parse('2026-11-25T12:00:00.000Z');
const lock = (over: Partial<Lock> = {}): Lock => ({
  id: 'abcd1234',
  token: 7,
  type: 'file',
  scope: '/repo',
  pattern: 'src/**',
  owner: 'claude-other',
  mode: 'exclusive',
  reason: null,
  created_at: now - 60_000,
  expires_at: now + 14 * 60_000,
  released_at: null,
  release_reason: null,
  ...over,
});

describe('preToolUseOutput', () => {
  it('prints nothing for a plain allow (never an explicit "allow", which would skip the permission prompt)', () => {
    expect(preToolUseOutput({ kind: 'allow' })).toBe('');
  });
  it('prints a systemMessage for a notice and the contract deny shape for a deny', () => {
    expect(JSON.parse(preToolUseOutput({ kind: 'allow', notice: 'n' }))).toEqual({ systemMessage: 'n' });
    expect(JSON.parse(preToolUseOutput({ kind: 'deny', reason: 'r "q" \n $(x)' }))).toEqual({
      hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'r "q" \n $(x)' },
    });
  });
});

describe('denyReason', () => {
  it('names the holder, the pattern, the expiry and what to do', () => {
    const conflict: Conflict = { pattern: 'src/a.ts', held: lock(), example: 'src/a.ts', state: 'active' };
    const reason = denyReason([conflict], now);
    expect(reason).toContain('claude-other');
    expect(reason).toContain('"src/**"');
    expect(reason).toContain('2026-11-25T12:14:00.000Z');
    expect(reason).toContain('in 14m');
    expect(reason).toContain('coord who');
    expect(reason).toMatch(/work on something else/);
    const decided = decideEdit({ kind: 'conflict', conflicts: [conflict], untrackable: [], now });
    expect(decided).toMatchObject({ kind: 'deny' });
    // The relative time is from the outcome's own clock (the database's), not this process's.
    expect(decideEdit({ kind: 'conflict', conflicts: [conflict], untrackable: [], now: now - 3_600_000 })).toMatchObject({ reason: expect.stringContaining('in 1.2h') });
  });
});

describe('decideFailure', () => {
  it('fails open with a notice, or closed on request', () => {
    const error = new IcError('DB_UNAVAILABLE', 'corrupt');
    expect(decideFailure(error, false)).toMatchObject({ kind: 'allow', notice: expect.stringContaining('DB_UNAVAILABLE') });
    expect(decideFailure(error, true)).toMatchObject({ kind: 'deny', reason: expect.stringContaining('IC_HOOK_FAIL=closed') });
  });
});

describe('shell quoting', () => {
  it.each(['plain', "it's", '$(touch pwned)', '`x`', 'a;b', "''", 'new\nline'])('%j round-trips through single quotes', (value) => {
    const quoted = singleQuoted(value);
    expect(quoted.startsWith("'")).toBe(true);
    expect(quoted.slice(1, -1).split("'\\''").join("'")).toBe(value);
  });
});

describe('heldByOthers', () => {
  const locks = [lock({ pattern: 'app/\\[id\\]/page.tsx' }), lock({ pattern: 'mine/**', owner: 'me' }), lock({ pattern: 'shared/**', mode: 'shared' })];
  it("matches staged paths against other owners' exclusive locks only", () => {
    const held = heldByOthers(['app/[id]/page.tsx', 'app/i/page.tsx', 'mine/x', 'shared/y'], locks, 'me', false);
    expect(held.map((h) => h.path)).toEqual(['app/[id]/page.tsx']);
  });
  it('counts every holder as another owner when IC_OWNER is empty', () => {
    expect(heldByOthers(['mine/x'], locks, '', false).map((h) => h.lock.owner)).toEqual(['me']);
  });
  it('reports path, holder, pattern and expiry', () => {
    const text = guardReport([{ path: '-rf\nx', lock: lock() }], 'block', 'me');
    expect(text).toContain('"-rf\\nx"');
    expect(text).toContain('claude-other');
    expect(text).toContain('"src/**"');
    expect(text).toContain('2026-11-25T12:14:00.000Z');
  });
});
