// A waiter says when it starts waiting and when the holder changes, nothing more (issue #22, Build 7).
// The wait runs on the test clock: 25 s of waiting in a few milliseconds, against a real SQLite file.
import { describe, expect, it } from 'vitest';
import { waitForLock, waitingNotice } from '../../src/cli/commands/lock-run';
import { describeConflict } from '../../src/cli/common';
import { dropName, takeName } from '../../src/coord/named';
import { useTestStore } from '../support/store';

const store = useTestStore();

describe('quiet waiting', () => {
  it("a waiter's stderr over a 25 s wait has 2 lines: one when it starts waiting, one when the holder changes", async () => {
    expect((await takeName(store.ctx, { type: 'named', name: 'tests', owner: 'alice', ttlMs: 3_600_000, reason: 'suite' })).granted).toBe(true);
    const lines: string[] = [];
    let handedOver = false;
    const result = await waitForLock(store.ctx, { name: 'tests', owner: 'bob/run-abcdefgh', ttlMs: 15_000, reason: 'npm test' }, 25_000, {
      write: (line) => lines.push(line),
      sleep: async (ms) => {
        store.now += Math.ceil(ms);
        if (!handedOver && store.now - Date.parse('2026-01-01T00:00:00.000Z') > 12_000) {
          handedOver = true;
          await dropName(store.ctx, { type: 'named', name: 'tests', owner: 'alice', force: false, reason: null });
          expect((await takeName(store.ctx, { type: 'named', name: 'tests', owner: 'carol/run-k3j9x0ab', ttlMs: 3_600_000, reason: 'make check' })).granted).toBe(true);
        }
      },
    });
    expect(result.timedOut).toBe(true);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^ic: waiting for tests \(held by alice since .*, reason: suite\)$/);
    // A run's lock: the person who started it, and "while its command runs", not the lease or the run's owner.
    expect(lines[1]).toMatch(/^ic: still waiting for tests \(held by carol's run of `make check` since 2026-01-01T00:00:1\d\.\d{3}Z, while its command runs \(lease renewed every 15s\)\)$/);
    expect(lines[1]).not.toContain('run-k3j9x0ab');
  });

  it("a run's refusal names the person who started it and says it lasts while its command runs", async () => {
    const held = await takeName(store.ctx, { type: 'named', name: 'tests', owner: 'alice/run-azlrqbyr', ttlMs: 15_000, reason: 'npm test' });
    expect(held.granted).toBe(true);
    const refused = await takeName(store.ctx, { type: 'named', name: 'tests', owner: 'bob', ttlMs: 15_000, reason: null });
    if (refused.granted) throw new Error('expected a conflict');
    const text = describeConflict(refused.conflicts[0]!, store.now);
    expect(text).toContain("held by alice's run of `npm test`, while its command runs (lease renewed every 15s)");
    expect(text).toContain('ask alice');
    expect(text).not.toMatch(/run-azlrqbyr|until \d/);
    expect(waitingNotice('tests', refused.conflicts[0]!, false)).not.toContain('run-azlrqbyr');
  });
});
