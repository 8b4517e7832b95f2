import { execa, type Options } from 'execa';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execFileSync } from 'node:child_process';

export const REPO_ROOT = resolve(__dirname, '..', '..');
export const IC_BIN = join(REPO_ROOT, 'bin', 'ic');
export const COORD_BIN = join(REPO_ROOT, 'bin', 'coord');

export interface TempRepo {
  dir: string;
  db: string;
  cleanup: () => void;
}

// A real git repository in a temp directory (canonical path), with its own database file.
export function makeTempRepo(prefix = 'ic-test-'): TempRepo {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  execFileSync('git', ['init', '-q', '-b', 'main', dir]);
  execFileSync('git', ['-C', dir, 'config', 'user.email', 'test@example.com']);
  execFileSync('git', ['-C', dir, 'config', 'user.name', 'Test']);
  execFileSync('git', ['-C', dir, 'config', 'commit.gpgsign', 'false']);
  // The default database of a git repository lives in its common dir (docs/reference.md, Database).
  return { dir, db: join(dir, '.git', 'ic', 'ic.db'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface RunResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  json: any;
}

// Environment for the bin under test: nothing inherited that could change its answers.
export function cleanEnv(extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = {
    ...process.env,
    IC_OWNER: undefined,
    IC_DB: undefined,
    IC_NOW: undefined,
    IC_TEST_CLOCK: undefined,
    IC_LOCK_DELAY: undefined,
    IC_GUARD: undefined,
    IC_HOOK_FAIL: undefined,
    IC_DEBUG: undefined,
    IC_FAST_PATH: undefined,
    CLAUDE_ENV_FILE: undefined,
    NO_COLOR: '1',
  };
  // A test that moves the clock turns on the switch that lets IC_NOW do so.
  const clock = extra.IC_NOW !== undefined && !('IC_TEST_CLOCK' in extra) ? { IC_TEST_CLOCK: '1' } : {};
  return { ...env, ...clock, ...extra };
}

function parse(stdout: string): any {
  try {
    return JSON.parse(stdout);
  } catch {
    return undefined;
  }
}

// Runs the real bin as a process: JSON on stdout (it is a pipe), never rejects on a non-zero exit.
export async function runBin(bin: string, args: string[], options: { cwd: string; env?: Record<string, string | undefined>; input?: string; timeout?: number }): Promise<RunResult> {
  const execaOptions: Options = { cwd: options.cwd, env: cleanEnv(options.env), extendEnv: false, reject: false, input: options.input ?? '', timeout: options.timeout ?? 20_000 };
  const result = await execa(bin, args, execaOptions);
  const stdout = String(result.stdout ?? '');
  return { exitCode: result.exitCode ?? -1, stdout, stderr: String(result.stderr ?? ''), json: parse(stdout) };
}

export function ic(repo: TempRepo, args: string[], options: { env?: Record<string, string | undefined>; input?: string; cwd?: string } = {}): Promise<RunResult> {
  return runBin(IC_BIN, args, { cwd: options.cwd ?? repo.dir, env: options.env, input: options.input });
}

export function coord(repo: TempRepo, args: string[], options: { env?: Record<string, string | undefined>; input?: string; cwd?: string } = {}): Promise<RunResult> {
  return runBin(COORD_BIN, args, { cwd: options.cwd ?? repo.dir, env: options.env, input: options.input });
}
