// Hooks obey IC_HOOK_TIMEOUT, with a watchdog (issue #21, Build 9): a git that never answers, or a stdin
// that is never closed, does not hang a hook. The hook answers by IC_HOOK_FAIL within the budget, exit 0
// (1 for a refused commit), never 2, kills what it started, and stores nothing. Real bin, real git, real
// bash; IC_HOOK_TIMEOUT=2s, so each run is bounded well inside its test.
import Database from 'better-sqlite3';
import { execa } from 'execa';
import { closeSync, constants, existsSync, openSync, readdirSync, readFileSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claudeEdit } from '../hooks/fixtures';
import { git, writeFile, writeScript } from '../hooks/git';
import { cleanEnv, coord, IC_BIN, makeTempRepo, runBin, type RunResult, type TempRepo } from '../support/cli';
import { survivors } from '../support/killed';

const BUDGET = { IC_HOOK_TIMEOUT: '2s' };
const NAMED = 'IC_HOOK_TIMEOUT=2s'; // how every answer by the fail policy names the budget
// The hook answers a fifth of the budget before its end, by its own clock (test/hooks/deadline.test.ts holds
// that arithmetic); its message naming the budget says the watchdog, not the work, ended it. The wall clock
// here only tells an answer from a hang: what hangs sleeps 600 s or never ends, while a loaded 2-core machine
// adds seconds to the budget (a 1 s budget took 2.8 s at load average 5-12, and a whole `git commit` around
// it 13 s at 20), so the bound is the budget with a wide margin, still far below the hang.
const NOT_HUNG_MS = 30_000;
const RUN_TIMEOUT_MS = 60_000; // execa kills a run that hangs after all
const SESSION = '5d3f6a0e-8c1b-4e7a-9f2d-3b4c5d6e7f80';

let repo: TempRepo;
beforeEach(() => {
  repo = makeTempRepo('ic-deadline-');
});
afterEach(() => repo.cleanup());

const noStack = (result: RunResult) => expect(`${result.stdout}${result.stderr}`).not.toMatch(/\n\s+at .+:\d+:\d+/);

async function timed<T>(run: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const started = performance.now();
  const result = await run();
  return { result, ms: performance.now() - started };
}

// What a hung git leaves to look at: its pid and its child's, one per line, written before it sleeps.
function hungPids(file: string): number[] {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).map(Number) : [];
}

// Everything a hook could store: every row of the tables hooks write. The liveness step that every agent hook
// runs first (its session's heartbeat, docs/sessions.md) is not the hook's work and is left out.
function stored(db: string): string {
  if (!existsSync(db)) return 'no database';
  const handle = new Database(db, { readonly: true });
  try {
    const rows = (table: string) => handle.prepare(`SELECT * FROM ${table}${table === 'events' ? " WHERE type <> 'heartbeat'" : ''}`).all();
    return JSON.stringify(['locks', 'events', 'custody_commands', 'custody_snapshots', 'custody_latest', 'custody_edits'].map(rows));
  } finally {
    handle.close();
  }
}

// Whatever the hook started is dead: git, and the sleep it started. How far it got depends on the machine: on a
// loaded one the budget can run out before the hook starts git (nothing to kill), or git is killed before it
// starts its sleep. That the kill takes git's whole process group is test/hooks/git-process.test.ts, which
// starts the hanging git for certain.
function expectAllKilled(pids: number[]): void {
  expect(pids.length).toBeLessThanOrEqual(2);
  expect(survivors(pids)).toEqual([]);
}

function filesIn(dir: string): Record<string, string> {
  return Object.fromEntries(readdirSync(dir).map((name) => [name, readFileSync(join(dir, name), 'latin1')]));
}

describe('a git that never answers', { timeout: 120_000 }, () => {
  // A `git` first in PATH that records its pid and its child's, then sleeps far past the budget: the hook's
  // git processes hang as behind a stuck lock or credential helper.
  function hangingGitPath(): { path: string; pids: string } {
    const bin = join(repo.dir, '.git', 'fake-bin');
    const pids = join(repo.dir, '.git', 'hung-pids');
    writeScript(join(bin, 'git'), `#!/bin/bash\necho $$ >> '${pids}'\nsleep 600 &\necho $! >> '${pids}'\nwait\necho never\n`);
    return { path: `${bin}:${process.env.PATH}`, pids };
  }

  // A session with a private staging area (install --git-index) whose base HEAD has since moved: its next
  // git command makes the pre-shell hook rebuild that index with git.
  async function sessionWithStaleIndex(): Promise<string> {
    writeFile(repo.dir, 'a.txt');
    await git(repo.dir, ['add', 'a.txt']);
    await git(repo.dir, ['commit', '-q', '-m', 'one']);
    const owner = `claude-${SESSION}`;
    const made = await runBin(IC_BIN, ['coord', 'hook', 'git-index-path'], { cwd: repo.dir, env: { IC_OWNER: owner, IC_HOOK_TIMEOUT: '60s' } }); // set-up: no budget to miss
    expect(made.exitCode).toBe(0);
    writeFile(repo.dir, 'b.txt');
    await git(repo.dir, ['add', 'b.txt']);
    await git(repo.dir, ['commit', '-q', '-m', 'two']); // another session's commit: the private index is stale now
    await coord(repo, ['reserve', 'held.txt', '--owner', 'alice']); // something held, so the check would store a snapshot
    return made.stdout.trim();
  }

  const gitCommitCall = () => JSON.stringify({ session_id: SESSION, cwd: repo.dir, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'git commit -m wip' } });

  it.each([
    ['open', 'allows the command with a notice naming IC_HOOK_TIMEOUT'],
    ['closed', 'denies the command'],
  ])('IC_HOOK_FAIL=%s: claude-pre-shell on `git commit` %s within the budget, kills the hung git and what it started, and changes nothing stored', async (mode) => {
    const index = await sessionWithStaleIndex();
    const { path, pids } = hangingGitPath();
    const before = { stored: stored(repo.db), index: filesIn(dirname(index)) };
    const { result, ms } = await timed(() =>
      runBin(IC_BIN, ['coord', 'hook', 'claude-pre-shell'], { cwd: repo.dir, env: { ...BUDGET, IC_HOOK_FAIL: mode, PATH: path }, input: gitCommitCall(), timeout: RUN_TIMEOUT_MS }),
    );
    expect(result.exitCode).toBe(0);
    expect(ms).toBeLessThan(NOT_HUNG_MS);
    const out = JSON.parse(result.stdout);
    if (mode === 'open') {
      expect(out.hookSpecificOutput?.permissionDecision).toBeUndefined();
      expect(out.systemMessage).toContain(NAMED);
      expect(out.systemMessage).toContain('allowed');
    } else {
      expect(out.hookSpecificOutput.permissionDecision).toBe('deny');
      expect(out.hookSpecificOutput.permissionDecisionReason).toContain(NAMED);
    }
    noStack(result);
    expectAllKilled(hungPids(pids));
    expect(stored(repo.db)).toBe(before.stored);
    expect(filesIn(dirname(index))).toEqual(before.index); // the private index and its base as they were, no temporary left
  });

  // The pre-commit guard inside a real `git commit`: git's own fsmonitor hook hangs, but only for the git
  // processes ic starts (the commit's own refresh gets a plain "no answer", exit 1).
  function hangFsmonitorUnderIc(): string {
    const pids = join(repo.dir, '.git', 'hung-pids');
    const script = join(repo.dir, '.git', 'fsmonitor-hang');
    writeScript(
      script,
      [
        '#!/bin/bash',
        'pid=$PPID',
        'while [ "$pid" -gt 1 ]; do',
        `  if tr '\\0' ' ' < /proc/$pid/cmdline | grep -q 'coord hook'; then echo $$ >> '${pids}'; sleep 600 & echo $! >> '${pids}'; wait; fi`,
        "  pid=$(sed 's/.*) //' /proc/$pid/stat | cut -d' ' -f2)",
        'done',
        'exit 1',
        '',
      ].join('\n'),
    );
    execFileSync('git', ['-C', repo.dir, 'config', 'core.fsmonitor', script]);
    return pids;
  }

  it.each([
    ['open', 0],
    ['closed', 1],
  ])('IC_HOOK_FAIL=%s: the pre-commit guard answers within the budget (commit exit %i), and the hung git and its hook are killed', async (mode, exitCode) => {
    expect((await runBin(IC_BIN, ['coord', 'install', '--git'], { cwd: repo.dir })).exitCode).toBe(0);
    await coord(repo, ['reserve', 'held.txt', '--owner', 'alice']); // a database to check against
    writeFile(repo.dir, 'mine.txt');
    await git(repo.dir, ['add', 'mine.txt']);
    const pids = hangFsmonitorUnderIc();
    const before = stored(repo.db);
    const { result, ms } = await timed(() => git(repo.dir, ['commit', '-q', '-m', 'mine'], { ...BUDGET, IC_HOOK_FAIL: mode, IC_OWNER: 'bob' }));
    expect(result.exitCode).toBe(exitCode);
    expect(ms).toBeLessThan(NOT_HUNG_MS); // git's own work around the hook included
    expect(result.stderr).toContain(NAMED);
    expect(result.stderr).toMatch(mode === 'open' ? /committing anyway/ : /commit refused/);
    noStack(result);
    const head = await git(repo.dir, ['log', '--format=%s', '-1']);
    expect(head.stdout.trim() === 'mine').toBe(mode === 'open');
    expectAllKilled(hungPids(pids));
    expect(stored(repo.db)).toBe(before);
  });

  // The commit-message gate as git runs it: its installed commit-msg script, under real bash, with the message
  // file; git for the hook's own calls (core.commentChar, the top level) is the one that never answers.
  it.each([
    ['open', 0],
    ['closed', 1],
  ])('IC_HOOK_FAIL=%s: the commit-message gate answers within the budget (exit %i) and kills the hung git', async (mode, exitCode) => {
    expect((await runBin(IC_BIN, ['coord', 'install', '--git', '--commit-gate'], { cwd: repo.dir })).exitCode).toBe(0);
    const message = join(repo.dir, '.git', 'COMMIT_EDITMSG');
    writeFile(repo.dir, '.git/COMMIT_EDITMSG', 'bd-12: fix the parser\n');
    const { path, pids } = hangingGitPath();
    const { result, ms } = await timed(() =>
      execa('bash', ['--noprofile', '--norc', join(repo.dir, '.git', 'hooks', 'commit-msg'), message], {
        cwd: repo.dir,
        env: cleanEnv({ ...BUDGET, IC_HOOK_FAIL: mode, IC_OWNER: 'bob', PATH: path }),
        extendEnv: false,
        reject: false,
        input: '',
        timeout: RUN_TIMEOUT_MS,
      }),
    );
    expect(result.exitCode).toBe(exitCode);
    expect(ms).toBeLessThan(NOT_HUNG_MS);
    expect(String(result.stderr)).toContain(NAMED);
    expect(String(result.stderr)).toContain(mode === 'open' ? 'committing anyway' : 'gate failed');
    expectAllKilled(hungPids(pids));
  });
});

describe('a stdin that is never closed', { timeout: 120_000 }, () => {
  const partialEdit = () => claudeEdit(repo.dir, SESSION, join(repo.dir, 'a.ts')).slice(0, -5); // the payload, cut short: no end of input follows

  async function expectFailPolicy(mode: string, result: { exitCode: number; stdout: string; stderr: string }, ms: number): Promise<void> {
    expect(result.exitCode).toBe(0);
    expect(ms).toBeLessThan(NOT_HUNG_MS);
    const out = JSON.parse(result.stdout);
    if (mode === 'open') {
      expect(out.systemMessage).toContain(NAMED);
      expect(out.hookSpecificOutput?.permissionDecision).toBeUndefined();
    } else {
      expect(out.hookSpecificOutput.permissionDecision).toBe('deny');
      expect(out.hookSpecificOutput.permissionDecisionReason).toContain(NAMED);
    }
    expect(`${result.stdout}${result.stderr}`).not.toMatch(/\n\s+at .+:\d+:\d+/);
    // Nothing was reserved: the edit hook never got its payload.
    expect(stored(repo.db)).toBe(before);
  }

  // The hook run by a bash script that gives it a stdin (the script's $0 is the bin, $1 its one argument).
  async function hookUnderBash(mode: string, script: string, arg: string): Promise<[{ exitCode: number; stdout: string; stderr: string }, number]> {
    const { result, ms } = await timed(() =>
      execa('bash', ['--noprofile', '--norc', '-c', script, IC_BIN, arg], {
        cwd: repo.dir,
        env: cleanEnv({ ...BUDGET, IC_HOOK_FAIL: mode }),
        extendEnv: false,
        reject: false,
        timeout: RUN_TIMEOUT_MS,
      }),
    );
    return [{ exitCode: result.exitCode ?? -1, stdout: String(result.stdout), stderr: String(result.stderr) }, ms];
  }
  let before: string;

  // The shell command's before hook starts in its own bundle (dist/fast.cjs), which reads stdin the same way.
  const partialShell = () => JSON.stringify({ session_id: SESSION, cwd: repo.dir, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'echo hi > a.ts' } }).slice(0, -5);

  // The hook on a socket stdin (execa's pipe) that gets a cut payload and is never closed; `env` adds to the budget's.
  async function expectAnsweredOnHeldSocket(mode: string, hook: string, partial: string, env: Record<string, string> = {}): Promise<void> {
    await coord(repo, ['reserve', 'held.txt', '--owner', 'alice']);
    before = stored(repo.db);
    const started = performance.now();
    const child = execa(IC_BIN, ['coord', 'hook', hook], {
      cwd: repo.dir,
      env: cleanEnv({ ...BUDGET, IC_HOOK_FAIL: mode, ...env }),
      extendEnv: false,
      reject: false,
      stdin: 'pipe',
      timeout: RUN_TIMEOUT_MS,
    });
    child.stdin!.write(partial);
    const result = await child;
    const ms = performance.now() - started;
    child.stdin!.destroy();
    await expectFailPolicy(mode, { exitCode: result.exitCode ?? -1, stdout: String(result.stdout), stderr: String(result.stderr) }, ms);
  }

  it.each([
    ['open', 'claude-pre-edit', () => partialEdit()],
    ['closed', 'claude-pre-edit', () => partialEdit()],
    ['closed', 'claude-pre-shell', () => partialShell()],
  ])('IC_HOOK_FAIL=%s: a socket held open (how Node- and Bun-based agents pipe a payload) is answered by the fail policy within the budget, %s', async (mode, hook, partial) => {
    await expectAnsweredOnHeldSocket(mode, hook, partial());
  });

  it.each(['open', 'closed'])('IC_HOOK_FAIL=%s: a pipe (FIFO) whose writer never closes it is answered by the fail policy within the budget', async (mode) => {
    await coord(repo, ['reserve', 'held.txt', '--owner', 'alice']);
    before = stored(repo.db);
    const fifo = join(repo.dir, '.git', 'payload.fifo');
    execFileSync('mkfifo', [fifo]);
    const fd = openSync(fifo, constants.O_RDWR); // a writer that stays: the hook never sees end of input
    try {
      writeSync(fd, partialEdit());
      // bash opens the FIFO read-write as the hook's stdin (so it is a writer too) and execs the hook on it.
      await expectFailPolicy(mode, ...(await hookUnderBash(mode, 'exec "$0" coord hook claude-pre-edit 0<>"$1"', fifo)));
    } finally {
      closeSync(fd);
    }
  });

  it.each(['open', 'closed'])('IC_HOOK_FAIL=%s: an anonymous pipe whose writer never closes it is answered by the fail policy within the budget', async (mode) => {
    await coord(repo, ['reserve', 'held.txt', '--owner', 'alice']);
    before = stored(repo.db);
    // The writer (a process substitution: an anonymous pipe) prints the cut payload and stays; it is killed once the hook has answered.
    const script = 'exec 3< <(printf %s "$1"; exec sleep 60); writer=$!; "$0" coord hook claude-pre-edit <&3; status=$?; kill $writer; exit $status';
    await expectFailPolicy(mode, ...(await hookUnderBash(mode, script, partialEdit())));
  });

  it('a payload whose writer closes stdin a moment later is read whole, as before', async () => {
    const started = performance.now();
    // A budget no loaded machine runs out of: this is about reading the payload whole, not about the deadline.
    const child = execa(IC_BIN, ['coord', 'hook', 'claude-pre-edit'], {
      cwd: repo.dir,
      env: cleanEnv({ IC_HOOK_TIMEOUT: '20s' }),
      extendEnv: false,
      reject: false,
      stdin: 'pipe',
      timeout: RUN_TIMEOUT_MS,
    });
    const payload = claudeEdit(repo.dir, SESSION, join(repo.dir, 'a.ts'));
    child.stdin!.write(payload.slice(0, 20));
    setTimeout(() => child.stdin!.end(payload.slice(20)), 150);
    const result = await child;
    expect(result.exitCode).toBe(0);
    expect(String(result.stdout)).toBe(''); // granted: the edit hook is silent
    expect(performance.now() - started).toBeLessThan(NOT_HUNG_MS);
    const list = await coord(repo, ['list']);
    expect(list.json.locks.map((lock: { pattern: string }) => lock.pattern)).toEqual(['a.ts']);
  });
});
