import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { execa, type ResultPromise } from 'execa';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { COORD_BIN, cleanEnv, coord, makeTempRepo, type TempRepo, listedLocks } from '../support/cli';

let repo: TempRepo;
const leftovers: number[] = [];
beforeEach(() => {
  repo = makeTempRepo();
});
afterEach(() => {
  for (const pid of leftovers.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  repo.cleanup();
});

const as = (owner: string, extra: Record<string, string> = {}) => ({ env: { IC_OWNER: owner, ...extra } });

// Each run appends "start <ms>" and "end <ms>" (wall clock) around a short sleep.
const stamp = (log: string) => `echo "start $(date +%s%N)" >> "${log}"; sleep 0.1; echo "end $(date +%s%N)" >> "${log}"`;

function intervals(log: string): [number, number][] {
  const lines = readFileSync(log, 'utf8').trim().split('\n');
  const spans: [number, number][] = [];
  for (let i = 0; i < lines.length; i += 2) {
    const [startWord, start] = lines[i]!.split(' ');
    const [endWord, end] = lines[i + 1]!.split(' ');
    expect([startWord, endWord]).toEqual(['start', 'end']); // no other run started in between
    spans.push([Number(start), Number(end)]);
  }
  return spans;
}

// stdio 'ignore' when an orphaned command would keep ic's pipes open after ic is gone.
function spawnRun(owner: string, args: string[], stdio: 'pipe' | 'ignore' = 'pipe'): ResultPromise {
  return execa(COORD_BIN, args, { cwd: repo.dir, env: cleanEnv({ IC_OWNER: owner }), extendEnv: false, reject: false, forceKillAfterDelay: false, stdio });
}

async function waitFor(condition: () => boolean, timeoutMs = 15_000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('coord lock NAME -- CMD', () => {
  it.each([
    ['one owner', () => 'alice'],
    ['several owners', (i: number) => `agent-${i % 4}`],
  ])(
    'never overlaps 10 concurrent runs from %s',
    async (_label, ownerOf) => {
      const log = join(repo.dir, 'log');
      writeFileSync(log, '');
      const runs = await Promise.all(Array.from({ length: 10 }, (_, i) => coord(repo, ['lock', 'tests', '--', 'sh', '-c', stamp(log)], as(ownerOf(i)))));
      expect(runs.map((r) => r.exitCode)).toEqual(Array(10).fill(0));
      const spans = intervals(log).sort((a, b) => a[0] - b[0]);
      expect(spans).toHaveLength(10);
      for (let i = 1; i < spans.length; i++) expect(spans[i]![0]).toBeGreaterThanOrEqual(spans[i - 1]![1]);
      expect((await coord(repo, ['list', '--active'])).json.locks).toEqual([]);
    },
    90_000,
  );

  it('waits by default, saying at once on stderr whom it waits for', async () => {
    expect((await coord(repo, ['lock', 'tests', '--reason', 'running the suite'], as('alice'))).exitCode).toBe(0);
    const waiter = spawnRun('bob', ['lock', 'tests', '--', 'echo', 'ran']);
    let said = '';
    waiter.stderr!.on('data', (chunk: Buffer) => (said += chunk.toString()));
    // Unlocked once bob says it waits: no guess at how long its start takes on a loaded machine.
    await waitFor(() => said.includes('waiting for'));
    expect((await coord(repo, ['unlock', 'tests'], as('alice'))).exitCode).toBe(0);
    const result = await waiter;
    expect(result.exitCode).toBe(0);
    expect(String(result.stdout).trim()).toBe('ran');
    expect(String(result.stderr)).toMatch(/^ic: waiting for tests \(held by alice since \d{4}-\d\d-\d\dT[\d:.]+Z, reason: running the suite\)$/m);
  });

  it('gives up with the conflict exit code: 75 by default, -E to choose, at once with -n', async () => {
    expect((await coord(repo, ['lock', 'tests'], as('alice'))).exitCode).toBe(0);
    const noWait = await coord(repo, ['lock', 'tests', '-n', '--', 'echo', 'ran'], as('bob'));
    expect(noWait.exitCode).toBe(75);
    expect(noWait.stdout).not.toContain('ran');
    expect(noWait.json.error.code).toBe('CONFLICT');
    expect(noWait.stderr).not.toContain('waiting for');
    const bounded = await coord(repo, ['lock', 'tests', '-w', '1s', '-E', '9', '--', 'echo', 'ran'], as('bob'));
    expect(bounded.exitCode).toBe(9);
    expect(bounded.json.error.code).toBe('TIMEOUT');
    expect(bounded.stderr).toContain('ic: waiting for tests (held by alice');
    expect((await coord(repo, ['lock', 'tests', '-E', '256', '--', 'true'], as('bob'))).exitCode).toBe(65);
  });

  it('is not re-entrant: a run waits for its own owner’s lock', async () => {
    expect((await coord(repo, ['lock', 'tests'], as('alice'))).exitCode).toBe(0);
    const result = await coord(repo, ['lock', 'tests', '-n', '--', 'true'], as('alice'));
    expect(result.exitCode).toBe(75);
    expect(result.json.error.conflicts[0].held.owner).toBe('alice');
  });

  // While the killed run's command lives, the lock stays held (test/hardening/run-signals-and-orphans.test.ts).
  it('frees the lock within its lease when ic is SIGKILLed and its command has ended, lock-delay notwithstanding', async () => {
    const pidFile = join(repo.dir, 'pid');
    const holder = spawnRun('alice', ['lock', 'tests', '--ttl', '5s', '--', 'sh', '-c', `echo $$ > "${pidFile}"; exec sleep 60`], 'ignore');
    leftovers.push(holder.pid!);
    await waitFor(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '');
    leftovers.push(Number(readFileSync(pidFile, 'utf8')));
    const held = await coord(repo, ['lock', 'tests', '-n', '--', 'true'], as('bob'));
    expect(held.json.error.conflicts[0].held.owner).toMatch(/^alice\/run-[0-9a-z]{8}$/);
    process.kill(holder.pid!, 'SIGKILL');
    await holder;
    process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGKILL');
    // Granted within a 20 s wait: the 5 s lease freed it, not the 60 s lock-delay (a wall-clock bound on the lease
    // itself would be missed on a loaded machine).
    const next = await coord(repo, ['lock', 'tests', '-w', '20s', '--', 'true'], as('bob'));
    expect(next.exitCode).toBe(0);
  }, 40_000);

  it('says so and exits non-zero when the lock is lost while the command runs', async () => {
    const pidFile = join(repo.dir, 'pid');
    const goFile = join(repo.dir, 'go');
    // The command runs until the test says so: a fixed sleep could end before the forced release on a loaded machine.
    const script = `echo $$ > "${pidFile}"; while [ ! -e "${goFile}" ]; do sleep 0.05; done`;
    const run = coord(repo, ['lock', 'tests', '--ttl', '5s', '--', 'sh', '-c', script], as('alice'));
    await waitFor(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '');
    const held = await coord(repo, ['lock', 'tests', '-n', '--', 'true'], as('bob'));
    const forced = await coord(repo, ['release', held.json.error.conflicts[0].held.id, '--force'], as('bob'));
    expect(forced.exitCode).toBe(0);
    writeFileSync(goFile, '');
    const result = await run;
    expect(result.exitCode).toBe(75);
    expect(result.stderr).toContain('ic: lost lock tests (released)');
    expect(result.stderr).toContain('the command exited 0');
  });

  it('refuses a lease under 5s, a bare number and a command without --', async () => {
    const short = await coord(repo, ['lock', 'tests', '--ttl', '1ms', '--', 'true'], as('alice'));
    expect([short.exitCode, short.json.error.message]).toEqual([65, expect.stringContaining('at least 5s')]);
    const bare = await coord(repo, ['lock', 'tests', '--ttl', '10', '--', 'true'], as('alice'));
    expect([bare.exitCode, bare.json.error.message]).toEqual([65, expect.stringContaining('write 10s or 10m')]);
    const noDashes = await coord(repo, ['lock', 'tests', '--ttl', '10m', 'minutes'], as('alice'));
    expect([noDashes.exitCode, noDashes.json.error.code]).toEqual([64, 'USAGE']);
    expect(await listedLocks(repo)).toEqual([]);
  });

  it('does not open the inspector on SIGUSR1', async () => {
    const pidFile = join(repo.dir, 'pid');
    const run = spawnRun('alice', ['lock', 'tests', '--', 'sh', '-c', `echo $$ > "${pidFile}"; sleep 1`]);
    leftovers.push(run.pid!);
    await waitFor(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '');
    process.kill(run.pid!, 'SIGUSR1');
    const result = await run;
    expect(result.exitCode).toBe(0);
    expect(String(result.stderr)).not.toContain('Debugger listening');
  });
});
