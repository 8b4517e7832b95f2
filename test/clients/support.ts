import { spawn, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const REPO_ROOT = resolve(__dirname, '..', '..');
export const IC_BIN = join(REPO_ROOT, 'bin', 'ic');
type Client = 'claude' | 'codex' | 'gemini' | 'copilot' | 'opencode' | 'pi' | 'cline';
const versions = JSON.parse(readFileSync(join(__dirname, 'versions.json'), 'utf8')) as Record<Client, { package: string; version: string }>;
export const cache = process.env.IC_CLIENTS_DIR || join(homedir(), '.cache', 'ic-real-clients');

function packageDir(client: Client): string {
  const { package: name, version } = versions[client];
  return join(cache, `${name.split('/').pop()}@${version}`, 'node_modules', ...name.split('/'));
}

// The real binaries, as scripts/install-clients.mjs installed them.
export const CLAUDE = { command: join(packageDir('claude'), 'bin', 'claude.exe'), prefix: [] as string[], version: versions.claude.version };
export const CODEX = { command: process.execPath, prefix: [join(packageDir('codex'), 'bin', 'codex.js')], version: versions.codex.version };
export const GEMINI = { command: process.execPath, prefix: [join(packageDir('gemini'), 'bundle', 'gemini.js')], version: versions.gemini.version };
export const COPILOT = { command: process.execPath, prefix: [join(packageDir('copilot'), 'npm-loader.js')], version: versions.copilot.version };
export const OPENCODE = { command: join(packageDir('opencode'), 'bin', 'opencode.exe'), prefix: [] as string[], version: versions.opencode.version };
export const PI = { command: process.execPath, prefix: [join(packageDir('pi'), 'dist', 'cli.js')], version: versions.pi.version };
export const CLINE = { command: process.execPath, prefix: [join(packageDir('cline'), 'bin', 'cline')], version: versions.cline.version };

export interface Scratch {
  root: string;
  repo: string;
  home: string;
  cleanup: () => void;
}

// A scratch git repository (with one commit) and a fake HOME beside it, both under one temp dir.
export function makeScratch(files: Record<string, string>): Scratch {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'ic-clients-')));
  const repo = join(root, 'repo');
  const home = join(root, 'home');
  mkdirSync(repo);
  mkdirSync(home);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(resolve(repo, path, '..'), { recursive: true });
    writeFileSync(join(repo, path), text);
  }
  const git = (...args: string[]) => execFileSync('git', ['-C', repo, ...args], { stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  git('-c', 'user.email=t@example.com', '-c', 'user.name=T', 'add', '-A');
  git('-c', 'user.email=t@example.com', '-c', 'user.name=T', 'commit', '-q', '-m', 'init', '--allow-empty');
  return { root, repo, home, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

// Runs a process without blocking the event loop (the mock servers live in this process), stdin closed.
export function run(command: string, args: string[], options: { cwd: string; env: Record<string, string>; timeoutMs?: number }): Promise<Run> {
  return new Promise((done) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.stdin.end();
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 90_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

// The machine's PATH with nothing of the agents' own environment: no IC_*, no CLAUDE_*, no CODEX_*.
export function baseEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, LANG: 'C.UTF-8', NO_COLOR: '1', ...extra };
}

export async function ic(cwd: string, args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; json: any; stdout: string; stderr: string }> {
  const result = await run(IC_BIN, args, { cwd, env: baseEnv(process.env.HOME ?? '/root', env) });
  let json: any;
  try {
    json = JSON.parse(result.stdout);
  } catch {
    json = undefined;
  }
  return { ...result, json };
}

// The event log of the scratch repository, oldest first.
export async function events(repo: string): Promise<{ type: string; owner: string; pattern: string; reason: string | null }[]> {
  return (await ic(repo, ['coord', 'events', '--limit', '1000'])).json.events;
}

export async function activeLocks(repo: string): Promise<{ owner: string; pattern: string; reason: string }[]> {
  return (await ic(repo, ['coord', 'list', '--active'])).json.locks;
}
