// `coord lock NAME -- CMD` behaves like flock under signals (issue #22, Build 1) and a SIGKILLed run does
// not let the next run start beside its orphaned command (issue #21, finding 13). Real bin, real bash.
import { execa } from 'execa';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { COORD_BIN, cleanEnv, coord, makeTempRepo, type TempRepo } from '../support/cli';

let repo: TempRepo;
const groups: number[] = [];
beforeEach(() => {
  repo = makeTempRepo('ic-run-signals-');
});
afterEach(() => {
  for (const pgid of groups.splice(0)) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  repo.cleanup();
});

async function waitFor(condition: () => boolean, timeoutMs = 15_000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const readPid = (file: string) => Number(readFileSync(file, 'utf8').trim());
const hasPid = (file: string) => existsSync(file) && readFileSync(file, 'utf8').trim() !== '';
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

// bash in a process group of its own, as a terminal runs a foreground job: SIGINT goes to the whole group.
function bashJob(script: string) {
  const job = execa('bash', ['--noprofile', '--norc', '-c', script], {
    cwd: repo.dir,
    env: cleanEnv({ IC_OWNER: 'alice', COORD: COORD_BIN }),
    extendEnv: false,
    reject: false,
    detached: true,
    stdio: 'ignore',
  });
  groups.push(job.pid!);
  return job;
}

describe('signals like flock', () => {
  it('a shell loop of `coord lock -- CMD` stopped by SIGINT to its process group runs no further iteration, and the command got the signal', async () => {
    const log = join(repo.dir, 'log');
    writeFileSync(log, '');
    const job = bashJob(`for i in 1 2 3; do "$COORD" lock x -- sh -c 'echo "iter $$" >> log; sleep 4'; done; echo AFTER >> log`);
    await waitFor(() => readFileSync(log, 'utf8').includes('iter'));
    const commandPid = Number(/iter (\d+)/.exec(readFileSync(log, 'utf8'))![1]);
    await new Promise((resolve) => setTimeout(resolve, 200)); // let ic reach its wait for the command
    process.kill(-job.pid!, 'SIGINT');
    const result = await job;
    expect(result.signal).toBe('SIGINT'); // bash itself stopped: its child died by SIGINT, not with 130
    expect(readFileSync(log, 'utf8').trim().split('\n')).toEqual([`iter ${commandPid}`]);
    expect(alive(commandPid)).toBe(false);
    expect((await coord(repo, ['list', '--active'])).json.locks).toEqual([]);
  }, 30_000);

  it('`coord lock … ; echo AFTER` does not print AFTER when interrupted, and ic dies by the signal it got (SIGTERM too)', async () => {
    const log = join(repo.dir, 'log');
    writeFileSync(log, '');
    const job = bashJob(`"$COORD" lock x -- sh -c 'echo started >> log; sleep 4'; echo AFTER >> log`);
    await waitFor(() => readFileSync(log, 'utf8').includes('started'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    process.kill(-job.pid!, 'SIGINT');
    await job;
    expect(readFileSync(log, 'utf8')).toBe('started\n');

    // SIGTERM to ic alone (not its group): forwarded to the command, then ic dies by SIGTERM.
    const pidFile = join(repo.dir, 'pid');
    const run = execa(COORD_BIN, ['lock', 'x', '--', 'sh', '-c', `echo $$ > "${pidFile}"; sleep 30`], {
      cwd: repo.dir,
      env: cleanEnv({ IC_OWNER: 'alice' }),
      extendEnv: false,
      reject: false,
      stdio: 'ignore',
    });
    await waitFor(() => hasPid(pidFile));
    groups.push(readPid(pidFile));
    await new Promise((resolve) => setTimeout(resolve, 200));
    process.kill(run.pid!, 'SIGTERM');
    const ended = await run;
    expect(ended.signal).toBe('SIGTERM');
    await waitFor(() => !alive(readPid(pidFile)), 5_000);
    expect((await coord(repo, ['list', '--active'])).json.locks).toEqual([]);
  }, 30_000);

  it('a command killed from elsewhere still gives 128 + signal, as documented (ic itself was not signalled)', async () => {
    const result = await coord(repo, ['lock', 'x', '--', 'sh', '-c', 'kill -TERM $$'], { env: { IC_OWNER: 'alice' } });
    expect(result.exitCode).toBe(143);
  });
});

describe('an orphaned run keeps its lock', () => {
  it('a SIGKILLed `coord lock tests -- CMD` does not let the next run start beside its orphan; the lock is free once the whole command tree has ended', async () => {
    const pidFile = join(repo.dir, 'pid');
    const bgFile = join(repo.dir, 'bg');
    // The leader starts a background child in its group and then waits: the tree is what counts.
    const holder = execa(COORD_BIN, ['lock', 'tests', '--ttl', '5s', '--', 'sh', '-c', `echo $$ > "${pidFile}"; sleep 60 & echo $! > "${bgFile}"; wait`], {
      cwd: repo.dir,
      env: cleanEnv({ IC_OWNER: 'alice' }),
      extendEnv: false,
      reject: false,
      stdio: 'ignore',
    });
    await waitFor(() => hasPid(pidFile) && hasPid(bgFile));
    const leader = readPid(pidFile);
    groups.push(leader);
    // Killed once the run's command is on record (written right after the spawn; a fixed 300 ms wait could be
    // too short on a loaded machine): past the lease, `list` shows the lock by its command's process group.
    const pastLease = { IC_OWNER: 'bob', IC_NOW: new Date(Date.now() + 60_000).toISOString() };
    const recorded = async () => (await coord(repo, ['list', '--active'], { env: pastLease })).json.locks.some((lock: any) => lock.command_pid === leader);
    for (const started = Date.now(); !(await recorded()); await new Promise((resolve) => setTimeout(resolve, 50))) if (Date.now() - started > 15_000) throw new Error('the run was never recorded');
    process.kill(holder.pid!, 'SIGKILL');
    await holder;
    process.kill(leader, 'SIGKILL'); // the leader goes too; its background child lives on in the group
    await waitFor(() => !existsSync(`/proc/${leader}`) || readFileSync(`/proc/${leader}/stat`, 'utf8').includes(') Z'), 5_000);
    expect(alive(readPid(bgFile))).toBe(true);

    // Long after the 5 s lease (the test clock), the orphan's lock is still held, and the refusal says why.
    const later = { IC_OWNER: 'bob', IC_NOW: new Date(Date.now() + 60_000).toISOString() };
    const refused = await coord(repo, ['lock', 'tests', '-n', '--', 'true'], { env: later });
    expect(refused.exitCode).toBe(75);
    expect(refused.json.error.conflicts[0]).toMatchObject({ state: 'command_running', pid: leader, held: { owner: expect.stringMatching(/^alice\/run-/) } });
    expect(refused.json.error.message).toContain(`its ic process is gone but its command (process group ${leader}) still runs on this host`);
    expect(refused.json.error.message).toContain(`kill -- -${leader}`);
    // People see it held too: list --active and who show the lock with its command's process group.
    const listed = await coord(repo, ['list', '--active'], { env: later });
    expect(listed.json.locks).toEqual([expect.objectContaining({ type: 'named', pattern: 'tests', owner: expect.stringMatching(/^alice\/run-/), command_pid: leader })]);
    const table = await coord(repo, ['list', '--active', '--format', 'table'], { env: later });
    expect(table.stdout).toContain(`while its command runs (process group ${leader}; its ic process is gone)`);
    const byOwner = await coord(repo, ['who'], { env: later });
    expect(JSON.stringify(byOwner.json)).toContain(`"command_pid":${leader}`);
    const waited = await coord(repo, ['lock', 'tests', '-w', '1s', '--', 'true'], { env: later });
    expect(waited.exitCode).toBe(75);
    expect(waited.stderr.trim().split('\n')[0]).toMatch(/^ic: waiting for tests \(held by alice's run of `sh -c .*`.*its ic process is gone/);

    process.kill(-leader, 'SIGKILL');
    await waitFor(() => !alive(readPid(bgFile)), 5_000);
    expect((await coord(repo, ['list', '--active'], { env: later })).json.locks).toEqual([]);
    const next = await coord(repo, ['lock', 'tests', '-n', '--', 'echo', 'ran'], { env: later });
    expect(next.exitCode).toBe(0);
    expect(next.stdout).toBe('ran');
  }, 40_000);
});
