import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { coord, makeTempRepo, type TempRepo, listedLocks } from '../support/cli';

let repo: TempRepo;
beforeEach(() => {
  repo = makeTempRepo();
});
afterEach(() => repo.cleanup());

const as = (owner: string) => ({ env: { IC_OWNER: owner } });
const events = async (type: string) => (await coord(repo, ['events'])).json.events.filter((e: any) => e.type === type);

describe('transfer needs authority', () => {
  it('refuses anyone but --from with NOT_OWNER, says how to force it, and changes nothing', async () => {
    await coord(repo, ['reserve', 'src/**'], as('bob'));
    const refused = await coord(repo, ['transfer', '--from', 'bob', '--to', 'dave'], as('carol'));
    expect(refused.exitCode).toBe(1);
    expect(refused.json.error.code).toBe('NOT_OWNER');
    expect(refused.json.error.message).toContain('--force');
    expect((await coord(repo, ['list', '--active'])).json.locks.map((l: any) => l.owner)).toEqual(['bob']);
    expect(await events('transferred')).toEqual([]);
  });

  it('lets the --from owner, or anyone with --force, and records by', async () => {
    await coord(repo, ['reserve', 'src/**'], as('bob'));
    expect((await coord(repo, ['transfer', '--from', 'bob', '--to', 'dave', '--force'], as('carol'))).exitCode).toBe(0);
    expect((await coord(repo, ['transfer', '--from', 'dave', '--to', 'erin'], as('dave'))).exitCode).toBe(0);
    expect((await events('transferred')).map((e: any) => e.detail)).toMatchObject([
      { from: 'bob', by: 'carol', forced: true },
      { from: 'dave', by: 'dave', forced: false },
    ]);
  });

  it('needs an owner to act as, like every write', async () => {
    await coord(repo, ['reserve', 'src/**'], as('bob'));
    const anonymous = await coord(repo, ['transfer', '--from', 'bob', '--to', 'dave', '--force']);
    expect([anonymous.exitCode, anonymous.json.error.code]).toEqual([64, 'USAGE']);
    const release = await coord(repo, ['release', '--pattern', 'src/**', '--force']);
    expect([release.exitCode, release.json.error.code]).toEqual([64, 'USAGE']);
  });
});

describe('release', () => {
  it('--all gives up file locks only; --claims and --everything reach further', async () => {
    await coord(repo, ['reserve', 'a.ts', 'b.ts'], as('alice'));
    await coord(repo, ['claim', 'issue-42'], as('alice'));
    await coord(repo, ['lock', 'deploy'], as('alice'));
    const all = await coord(repo, ['release', '--all'], as('alice'));
    expect(all.json.released.map((l: any) => l.pattern)).toEqual(['a.ts', 'b.ts']);
    const active = async () => (await coord(repo, ['list', '--active'])).json.locks.map((l: any) => l.pattern).sort();
    expect(await active()).toEqual(['deploy', 'issue-42']);
    const claims = await coord(repo, ['release', '--claims'], as('alice'));
    expect(claims.json.released.map((l: any) => l.pattern)).toEqual(['issue-42']);
    const everything = await coord(repo, ['release', '--everything'], as('alice'));
    expect(everything.json.released.map((l: any) => l.pattern)).toEqual(['deploy']);
    expect(await active()).toEqual([]);
  });

  it('--pattern with no exact match lists the near matches and releases nothing', async () => {
    const held = await coord(repo, ['reserve', 'src/**'], as('alice'));
    await coord(repo, ['reserve', 'docs/**'], as('alice'));
    const result = await coord(repo, ['release', '--pattern', 'src/*.ts'], as('alice'));
    expect(result.exitCode).toBe(1);
    expect(result.json.near.map((l: any) => l.id)).toEqual([held.json.locks[0].id]);
    expect(result.json.error.message).toContain(`near matches: src/** (${held.json.locks[0].id}, alice)`);
    expect((await coord(repo, ['list', '--active'])).json.locks).toHaveLength(2);
  });
});

describe('durations from the environment', () => {
  it.each([
    ['IC_LOCK_DELAY', '10'],
    ['IC_BUSY_TIMEOUT', '5'],
  ])('%s=%s without a unit is 65 and writes nothing', async (name, value) => {
    const result = await coord(repo, ['reserve', 'a.ts'], { env: { IC_OWNER: 'alice', [name]: value } });
    expect(result.exitCode).toBe(65);
    expect(result.json.error.message).toContain(`${name} "${value}" needs a unit: write ${value}s or ${value}m`);
  });

  it('IC_LOCK_DELAY=0 still turns the delay off', async () => {
    expect((await coord(repo, ['reserve', 'a.ts'], { env: { IC_OWNER: 'alice', IC_LOCK_DELAY: '0' } })).exitCode).toBe(0);
  });

  it('--ttl 10 minutes is refused before anything is taken', async () => {
    const result = await coord(repo, ['reserve', 'a.ts', '--ttl', '10', 'minutes'], as('alice'));
    expect(result.exitCode).toBe(65);
    expect(result.json.error.message).toContain('write 10s or 10m');
    expect(await listedLocks(repo)).toEqual([]);
  });
});
