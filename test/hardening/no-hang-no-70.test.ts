// No hang, no exit 70, no stack trace (issue #21, finding 11): FIFOs where ic expects files, odd file types
// where install writes, a directory in sweep's own folder, SIGUSR1 to a hook, an out-of-range
// IC_HOOK_TIMEOUT. The real bin in real temp git repositories; every run has a 15 s bound, far above the answers.
import { execFileSync } from 'node:child_process';
import { execa } from 'execa';
import { constants, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claudeEdit } from '../hooks/fixtures';
import { cleanEnv, coord, IC_BIN, makeTempRepo, runBin, type RunResult, type TempRepo } from '../support/cli';

let repo: TempRepo;
beforeEach(() => {
  repo = makeTempRepo('ic-no-hang-');
});
afterEach(() => repo.cleanup());

const SESSION = '1f0b6a52-6d4e-4c38-9a57-0c7d2f3e9b11';
const noStack = (result: RunResult) => expect(`${result.stdout}${result.stderr}`).not.toMatch(/\n\s+at .+:\d+:\d+/);
const bounded = (args: string[], options: { env?: Record<string, string | undefined>; input?: string } = {}) => runBin(IC_BIN, args, { cwd: repo.dir, timeout: 15_000, ...options });
const mkfifo = (path: string) => execFileSync('mkfifo', [path]);

describe('every file ic opens is checked for its type first', () => {
  it.each(['-journal', '-wal'])('a FIFO at ic.db%s: list and reserve exit 69 naming it, and the edit hook answers (fail open) instead of hanging', async (suffix) => {
    expect((await coord(repo, ['reserve', 'kept.ts', '--owner', 'alice'])).exitCode).toBe(0);
    rmSync(`${repo.db}${suffix}`, { force: true });
    mkfifo(`${repo.db}${suffix}`);
    for (const args of [
      ['coord', 'list'],
      ['coord', 'reserve', 'x.ts', '--owner', 'bob'],
    ]) {
      const result = await bounded(args);
      expect(result.exitCode, args.join(' ')).toBe(69);
      expect(result.json.error.message).toContain(`${repo.db}${suffix} is a FIFO (named pipe), not a file`);
      noStack(result);
    }
    const hook = await bounded(['coord', 'hook', 'claude-pre-edit'], { input: claudeEdit(repo.dir, SESSION, join(repo.dir, 'a.ts')) });
    expect(hook.exitCode).toBe(0);
    expect(JSON.parse(hook.stdout).systemMessage).toMatch(/FIFO/);
  });

  it('init --import of a FIFO exits 69 at once', async () => {
    const fifo = join(repo.dir, 'old.db');
    mkfifo(fifo);
    const result = await bounded(['init', '--import', fifo]);
    expect(result.exitCode).toBe(69);
    expect(result.json.error.message).toContain(`${fifo} is a FIFO (named pipe), not a file`);
    noStack(result);
  });

  it('a Stop hook whose transcript_path is a FIFO returns at once', async () => {
    const fifo = join(repo.dir, 'transcript.jsonl');
    mkfifo(fifo);
    const payload = JSON.stringify({ session_id: SESSION, transcript_path: fifo, cwd: repo.dir, hook_event_name: 'Stop' });
    const result = await bounded(['coord', 'hook', 'claude-turn-end'], { input: payload });
    expect(result.exitCode).toBe(0);
    noStack(result);
  });
});

describe('install: a file-type problem is 65 naming the path, and nothing is written', () => {
  it.each([
    ['.claude is a file', ['--claude'], (dir: string) => writeFileSync(join(dir, '.claude'), 'x'), '.claude', 'a file, not a directory'],
    [
      'settings.local.json is a directory',
      ['--claude'],
      (dir: string) => mkdirSync(join(dir, '.claude', 'settings.local.json'), { recursive: true }),
      join('.claude', 'settings.local.json'),
      'a directory, not a file',
    ],
    [
      '.git/hooks is a file',
      ['--git'],
      (dir: string) => {
        rmSync(join(dir, '.git', 'hooks'), { recursive: true, force: true });
        writeFileSync(join(dir, '.git', 'hooks'), 'x');
      },
      join('.git', 'hooks'),
      'a file, not a directory',
    ],
  ])('%s', async (_label, flags, arrange, culprit, what) => {
    arrange(repo.dir);
    const before = readdirSync(repo.dir).sort();
    const result = await bounded(['coord', 'install', ...flags]);
    expect(result.exitCode).toBe(65);
    expect(result.json.error.message).toContain(`${join(repo.dir, culprit)} is ${what}`);
    expect(result.json.error.path).toBe(join(repo.dir, culprit));
    expect(readdirSync(repo.dir).sort()).toEqual(before);
    noStack(result);
  });

  it('CODEX_HOME is a file', async () => {
    const codexHome = join(repo.dir, 'codex-home');
    writeFileSync(codexHome, 'x');
    const result = await bounded(['coord', 'install', '--codex', '--trust'], { env: { CODEX_HOME: codexHome } });
    expect(result.exitCode).toBe(65);
    expect(result.json.error.message).toContain(`${codexHome} is a file, not a directory`);
    expect(result.json.error.message).toContain('$CODEX_HOME');
    expect(existsSync(join(repo.dir, '.codex'))).toBe(false); // all or nothing
  });
});

describe('sweep skips what it does not recognise in its own directory', () => {
  it('a directory older than 24 h in .git/ic/index/ is skipped, on every run', async () => {
    expect((await coord(repo, ['reserve', 'kept.ts', '--owner', 'alice'])).exitCode).toBe(0);
    const stray = join(repo.dir, '.git', 'ic', 'index', 'not-an-index');
    mkdirSync(stray, { recursive: true });
    writeFileSync(join(stray, 'inside'), 'x');
    const old = (Date.now() - 3 * 86_400_000) / 1000;
    utimesSync(stray, old, old);
    for (let run = 0; run < 2; run++) {
      const result = await bounded(['coord', 'sweep']);
      expect(result.exitCode).toBe(0);
      noStack(result);
    }
    expect(existsSync(join(stray, 'inside'))).toBe(true);
  });
});

describe('signals and settings on the hook path', () => {
  it('SIGUSR1 to a hook opens no inspector and causes no EINTR stack trace', async () => {
    const child = execa(IC_BIN, ['coord', 'hook', 'claude-pre-edit'], { cwd: repo.dir, env: cleanEnv({}), extendEnv: false, reject: false, stdin: 'pipe' });
    // Signalled once it reads its stdin (which stays open): ic then has made its stdin descriptor non-blocking
    // (src/hooks/stdin.ts). A fixed sleep sent the signal before Node ran a line of ic on a loaded machine (that
    // point came at 0.75 s on an idle one), where nothing can keep Node from opening its inspector.
    const reading = () => /^flags:\s+(\d+)/m.exec(readFileSync(`/proc/${child.pid}/fdinfo/0`, 'utf8'))![1]!;
    for (const started = Date.now(); (parseInt(reading(), 8) & constants.O_NONBLOCK) === 0;) {
      if (Date.now() - started > 20_000) throw new Error('the hook never read its stdin');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    child.kill('SIGUSR1');
    await new Promise((resolve) => setTimeout(resolve, 200));
    child.stdin!.end(claudeEdit(repo.dir, SESSION, join(repo.dir, 'a.ts')));
    const result = await child;
    expect(result.exitCode).toBe(0);
    expect(String(result.stderr)).not.toMatch(/Debugger listening|EINTR|\n\s+at /);
    expect((await coord(repo, ['list', '--active'])).json.locks.map((lock: any) => lock.pattern)).toEqual(['a.ts']);
  });

  it('IC_HOOK_TIMEOUT=99999h is named as IC_HOOK_TIMEOUT (not IC_BUSY_TIMEOUT), and the edit is still reserved', async () => {
    const result = await bounded(['coord', 'hook', 'claude-pre-edit'], { input: claudeEdit(repo.dir, SESSION, join(repo.dir, 'a.ts')), env: { IC_HOOK_TIMEOUT: '99999h' } });
    expect(result.exitCode).toBe(0);
    const notice = JSON.parse(result.stdout).systemMessage as string;
    expect(notice).toContain('IC_HOOK_TIMEOUT is too long: "99999h" (at most 10m); using 5s');
    expect(notice).not.toContain('IC_BUSY_TIMEOUT');
    expect((await coord(repo, ['list', '--active'])).json.locks.map((lock: any) => lock.pattern)).toEqual(['a.ts']);
  });
});
