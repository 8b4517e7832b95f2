// The conflict rule (core/conflict.ts) case by case: who binds whom, when, and with what example.
import { describe, expect, it } from 'vitest';
import { bindingState, commonTarget, conflictWith, findGroupConflicts, recheckConflict, type LockRequest } from '../../src/core/conflict';
import type { Lock } from '../../src/core/lock';
import { runOwner } from '../../src/core/owner';

const NOW = 1_000_000;
const DELAY = 60_000;

const lock = (extra: Partial<Lock> = {}): Lock => ({
  id: 'held0001',
  token: 7,
  type: 'file',
  scope: '/r',
  pattern: 'src/**',
  owner: 'alice',
  mode: 'exclusive',
  reason: null,
  created_at: 0,
  expires_at: NOW + 1_000,
  released_at: null,
  release_reason: null,
  ...extra,
});
const request = (extra: Partial<LockRequest> = {}): LockRequest => ({ type: 'file', scope: '/r', pattern: 'src/a.ts', owner: 'bob', mode: 'exclusive', ...extra });

describe('bindingState', () => {
  it.each([
    ['an unexpired, unreleased lock', lock(), 'active'],
    ['a lock that lapsed inside the delay', lock({ expires_at: NOW - 1 }), 'lock_delay'],
    ['a lock swept as expired inside the delay', lock({ expires_at: NOW - 1, released_at: NOW - 1, release_reason: 'expired' }), 'lock_delay'],
    ['a lock lapsed exactly the delay ago', lock({ expires_at: NOW - DELAY }), null],
    ['a lock expiring exactly now', lock({ expires_at: NOW }), 'lock_delay'],
    ['a released lock', lock({ released_at: NOW - 1, release_reason: 'released' }), null],
    ['a transferred-away lock', lock({ released_at: NOW - 1, release_reason: 'transferred' }), null],
    ['a lapsed run lease (no delay for a dead ic process)', lock({ owner: runOwner('alice', 'abcd1234'), expires_at: NOW - 1 }), null],
  ] as const)('%s: %s', (_label, held, state) => {
    expect(bindingState(held, NOW, DELAY)).toBe(state);
  });

  it('has no lock-delay when the delay is 0', () => {
    expect(bindingState(lock({ expires_at: NOW - 1 }), NOW, 0)).toBeNull();
  });
});

describe('conflictWith', () => {
  it.each([
    ['another owner, both exclusive, overlapping', request(), lock(), true],
    ['the same owner', request({ owner: 'alice' }), lock(), false],
    ['another scope', request({ scope: '/other' }), lock(), false],
    ['another type', request({ type: 'named', pattern: 'src/**' }), lock(), false],
    ['both shared', request({ mode: 'shared' }), lock({ mode: 'shared' }), false],
    ['shared against exclusive', request({ mode: 'shared' }), lock(), true],
    ['exclusive against shared', request(), lock({ mode: 'shared' }), true],
    ['disjoint patterns', request({ pattern: 'docs/a.md' }), lock(), false],
    ['a lock that no longer binds', request(), lock({ released_at: NOW - 1, release_reason: 'released' }), false],
  ] as const)('%s: %s', (_label, req, held, conflicts) => {
    expect(conflictWith(req, held, NOW, DELAY) !== null).toBe(conflicts);
  });

  it('names the request, the lock, a common path and the state', () => {
    expect(conflictWith(request({ pattern: 'src/*.ts' }), lock({ expires_at: NOW - 1 }), NOW, DELAY)).toMatchObject({
      pattern: 'src/*.ts',
      held: { id: 'held0001' },
      example: expect.stringMatching(/^src\/[^/]*\.ts$/),
      state: 'lock_delay',
    });
  });
});

describe('commonTarget', () => {
  it('compares names by equality and files by overlap', () => {
    expect(commonTarget('named', 'deploy', 'deploy')).toBe('deploy');
    expect(commonTarget('claim', 'deploy', 'Deploy')).toBeNull();
    expect(commonTarget('file', 'src/a.ts', 'src/a.ts')).toBe('src/a.ts');
    expect(commonTarget('file', 'src/**', 'docs/**')).toBeNull();
  });
});

describe('findGroupConflicts', () => {
  it('lists each blocking lock once, in token order, with the first request it blocks', () => {
    const late = lock({ id: 'late0001', token: 9, pattern: 'src/a.ts' });
    const early = lock({ id: 'early001', token: 3, pattern: 'src/**', owner: 'carol' });
    const conflicts = findGroupConflicts(
      [request({ pattern: 'src/a.ts' }), request({ pattern: 'src/**' })].map((r) => ({ request: r, candidates: [late, early] })),
      NOW,
      DELAY,
    );
    expect(conflicts.map((c) => [c.held.id, c.pattern])).toEqual([
      ['early001', 'src/a.ts'],
      ['late0001', 'src/a.ts'],
    ]);
  });
});

describe('recheckConflict', () => {
  const conflict = conflictWith(request(), lock(), NOW, DELAY)!;

  it('keeps a conflict whose lock still binds, in its current state', () => {
    expect(recheckConflict(conflict, request(), lock({ expires_at: NOW + 10 }), NOW + 20, DELAY)).toMatchObject({ state: 'lock_delay' });
  });

  it.each([
    ['deleted', undefined],
    ['released', lock({ released_at: NOW, release_reason: 'released' })],
    ['transferred to the requester', lock({ owner: 'bob' })],
    ['made shared when the request is shared too', lock({ mode: 'shared' })],
  ] as const)('drops it when the lock was %s', (label, current) => {
    const asked = label.startsWith('made shared') ? request({ mode: 'shared' }) : request();
    expect(recheckConflict(conflict, asked, current, NOW, DELAY)).toBeNull();
  });
});
