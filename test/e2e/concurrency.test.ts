import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { coord, makeTempRepo, type RunResult, type TempRepo } from '../support/cli';
import { findDoubleGrants } from '../support/replay';

let repo: TempRepo;
beforeEach(() => {
  repo = makeTempRepo();
});
afterEach(() => repo.cleanup());

const POOL = ['src/**', 'src/a.ts', 'src/*.ts', 'src/{a,b}.ts', '**/*.ts', 'docs/**', 'src/b.ts', 'lib/[ab]/x.ts', 'lib/**', '*.md'];

describe('many processes at once', () => {
  it('never grants two conflicting locks and never surfaces a raw SQLITE_BUSY', async () => {
    const workers = 16;
    const rounds = 5;
    const results: RunResult[] = [];
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    await Promise.all(
      Array.from({ length: workers }, async (_, worker) => {
        const owner = `agent-${worker}`;
        for (let round = 0; round < rounds; round++) {
          const pattern = POOL[Math.floor(random() * POOL.length)]!;
          const shared = random() < 0.3 ? ['--shared'] : [];
          const reserved = await coord(repo, ['reserve', pattern, ...shared], { env: { IC_OWNER: owner } });
          results.push(reserved);
          if (reserved.exitCode === 0) results.push(await coord(repo, ['release', '--all'], { env: { IC_OWNER: owner } }));
        }
      }),
    );
    for (const result of results) {
      expect([0, 1], result.stdout + result.stderr).toContain(result.exitCode);
      expect(result.stdout + result.stderr).not.toMatch(/SQLITE_BUSY|database is locked/);
      expect(() => JSON.parse(result.stdout)).not.toThrow();
    }
    const grants = results.filter((r) => r.json.locks);
    expect(grants.length).toBeGreaterThan(0);
    const events = (await coord(repo, ['events', '--limit', '10000'])).json.events;
    const locks = (await coord(repo, ['list'])).json.locks;
    const modes = new Map<string, string>(locks.map((lock: any) => [lock.id, lock.mode]));
    expect(findDoubleGrants(events, modes)).toEqual([]);
    const grantedIds = new Set(grants.flatMap((r) => r.json.locks.map((l: any) => l.id)));
    const reservedIds = new Set(events.filter((e: any) => e.type === 'reserved').map((e: any) => e.lock_id));
    for (const id of grantedIds) expect(reservedIds.has(id)).toBe(true);
  }, 120_000);

  it('lets many processes create a new database at once without a BUSY', async () => {
    for (let round = 0; round < 6; round++) {
      const fresh = makeTempRepo();
      try {
        const results = await Promise.all(
          Array.from({ length: 6 }, (_, i) => coord(fresh, i % 2 ? ['lock', `job-${i}`, '--wait', '30s', '--', 'true'] : ['reserve', `f${i}.ts`], { env: { IC_OWNER: `agent-${i}` } })),
        );
        for (const result of results) expect(result.exitCode, result.stdout + result.stderr).toBe(0);
      } finally {
        fresh.cleanup();
      }
    }
  }, 120_000);
});
