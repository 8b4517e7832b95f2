// Private staging areas with real git: two sessions, interleaved `git add` / `git commit` in every order.
// Each commit must hold exactly its committer's staged changes on top of the HEAD it lands on, and no
// commit may revert another session's.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanEnv, coord, ic, makeTempRepo, type TempRepo } from '../support/cli';
import { onPostgres } from '../support/engine';

interface Session {
  id: string;
  owner: string;
  index: string;
  env: Record<string, string | undefined>;
}

const repos: TempRepo[] = [];
afterEach(() => {
  for (const repo of repos.splice(0)) repo.cleanup();
});

function git(repo: TempRepo, args: string[], env: Record<string, string | undefined> = {}): string {
  return execFileSync('git', args, { cwd: repo.dir, env: cleanEnv(env) as NodeJS.ProcessEnv, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function tryGit(repo: TempRepo, args: string[], env: Record<string, string | undefined>): { ok: boolean; stderr: string } {
  try {
    git(repo, args, env);
    return { ok: true, stderr: '' };
  } catch (error) {
    return { ok: false, stderr: String((error as { stderr?: unknown }).stderr ?? '') };
  }
}

// A repository with three committed files and ic's git hooks (guard + post-commit) installed.
async function setUp(): Promise<TempRepo> {
  const repo = makeTempRepo('ic-index-');
  repos.push(repo);
  for (const name of ['a.txt', 'b.txt', 'c.txt']) writeFileSync(join(repo.dir, name), `${name} v0\n`);
  git(repo, ['add', '.']);
  git(repo, ['commit', '-q', '-m', 'start']);
  const installed = await ic(repo, ['coord', 'install', '--git', '--git-index']);
  expect(installed.exitCode).toBe(0);
  return repo;
}

// A Claude session as the SessionStart hooks set it up: IC_OWNER and GIT_INDEX_FILE in its env file.
async function startSession(repo: TempRepo, id: string): Promise<Session> {
  const envDir = mkdtempSync(join(tmpdir(), 'ic-envfile-'));
  const envFile = join(envDir, 'env');
  try {
    const payload = JSON.stringify({ session_id: id, cwd: repo.dir, hook_event_name: 'SessionStart' });
    expect((await ic(repo, ['coord', 'hook', 'claude-session-start'], { input: payload, env: { CLAUDE_ENV_FILE: envFile } })).exitCode).toBe(0);
    expect((await ic(repo, ['coord', 'hook', 'claude-git-index'], { input: payload, env: { CLAUDE_ENV_FILE: envFile } })).exitCode).toBe(0);
    const lines = readFileSync(envFile, 'utf8');
    const index = /^export GIT_INDEX_FILE='([^']+)'$/m.exec(lines)?.[1];
    expect(index).toBeDefined();
    expect(existsSync(index!)).toBe(true);
    const owner = `claude-${id}`;
    expect(lines).toContain(`export IC_OWNER='${owner}'`);
    return { id, owner, index: index!, env: { IC_OWNER: owner, GIT_INDEX_FILE: index! } };
  } finally {
    rmSync(envDir, { recursive: true, force: true });
  }
}

// What Claude's PreToolUse hook on Bash does before a git command.
// claude-pre-shell (the default install) does the same in the one PreToolUse process on Bash.
async function preBash(repo: TempRepo, session: Session, command: string, hook = 'claude-pre-bash'): Promise<string> {
  const payload = JSON.stringify({ session_id: session.id, cwd: repo.dir, tool_name: 'Bash', tool_input: { command } });
  const result = await ic(repo, ['coord', 'hook', hook], { input: payload });
  expect(result.exitCode).toBe(0);
  return result.stdout;
}

function changedPaths(repo: TempRepo, commit = 'HEAD'): string[] {
  return git(repo, ['show', '--name-only', '--format=', commit]).split('\n').filter(Boolean).sort();
}

function fileAt(repo: TempRepo, commit: string, path: string): string {
  return git(repo, ['show', `${commit}:${path}`]);
}

type Step = 'add' | 'commit';

// Every interleaving of A's [add, commit] with B's [add, commit].
function interleavings(): [string, Step][][] {
  const out: [string, Step][][] = [];
  const walk = (a: number, b: number, acc: [string, Step][]) => {
    if (a === 2 && b === 2) return void out.push(acc);
    const steps: Step[] = ['add', 'commit'];
    if (a < 2) walk(a + 1, b, [...acc, ['A', steps[a]!]]);
    if (b < 2) walk(a, b + 1, [...acc, ['B', steps[b]!]]);
  };
  walk(0, 0, []);
  return out;
}

describe('private staging areas (install --git-index)', () => {
  it.each(interleavings().map((order) => [order.map(([s, step]) => `${s}.${step}`).join(' '), order] as const))(
    'order %s: each commit holds exactly its own staged change on the current HEAD, nothing reverted',
    async (_name, order) => {
      const repo = await setUp();
      const sessions = { A: await startSession(repo, 'A'), B: await startSession(repo, 'B') };
      const files = { A: 'a.txt', B: 'b.txt' };
      for (const [who, step] of order) {
        const session = sessions[who as 'A' | 'B'];
        const file = files[who as 'A' | 'B'];
        if (step === 'add') {
          writeFileSync(join(repo.dir, file), `${file} by ${who}\n`);
          git(repo, ['add', file], session.env);
        } else {
          const before = git(repo, ['rev-parse', 'HEAD']).trim();
          git(repo, ['commit', '-q', '-m', `${who} commits`], session.env);
          expect(changedPaths(repo)).toEqual([file]); // exactly the committer's staged path
          expect(git(repo, ['rev-parse', 'HEAD~1']).trim()).toBe(before);
          expect(fileAt(repo, 'HEAD', file)).toBe(`${file} by ${who}\n`);
        }
      }
      // Both changes are in HEAD: neither commit reverted the other; c.txt untouched.
      expect(fileAt(repo, 'HEAD', 'a.txt')).toBe('a.txt by A\n');
      expect(fileAt(repo, 'HEAD', 'b.txt')).toBe('b.txt by B\n');
      expect(fileAt(repo, 'HEAD', 'c.txt')).toBe('c.txt v0\n');
      // The shared index saw nothing staged by either session.
      expect(git(repo, ['diff', '--cached', '--name-only', 'HEAD'])).toBe('');
    },
  );

  it("A commits while B has staged files: B's commit does not revert A's (refresh in the pre-commit guard)", async () => {
    const repo = await setUp();
    const a = await startSession(repo, 'A');
    const b = await startSession(repo, 'B');
    writeFileSync(join(repo.dir, 'b.txt'), 'b.txt by B\n');
    git(repo, ['add', 'b.txt'], b.env);
    writeFileSync(join(repo.dir, 'a.txt'), 'a.txt by A\n');
    git(repo, ['rm', '-q', 'c.txt'], a.env);
    git(repo, ['add', 'a.txt'], a.env);
    git(repo, ['commit', '-q', '-m', 'A: a and c'], a.env);
    expect(changedPaths(repo)).toEqual(['a.txt', 'c.txt']);
    // B's index still holds the old a.txt and c.txt; without the refresh this commit would put them back.
    git(repo, ['commit', '-q', '-m', 'B: b'], b.env);
    expect(changedPaths(repo)).toEqual(['b.txt']);
    expect(git(repo, ['show', '--stat', '--format=', 'HEAD'])).toMatch(/b\.txt \| 2 \+-/);
    expect(fileAt(repo, 'HEAD', 'a.txt')).toBe('a.txt by A\n');
    expect(tryGit(repo, ['cat-file', '-e', 'HEAD:c.txt'], {}).ok).toBe(false);
    // And B's `git status` shows no phantom changes afterwards.
    expect(git(repo, ['status', '--porcelain'], b.env)).toBe('');
  });

  it.each(['claude-pre-bash', 'claude-pre-shell'])('%s rebuilds a stale index before a git command, and is silent for other commands', async (hook) => {
    const repo = await setUp();
    const a = await startSession(repo, 'A');
    const b = await startSession(repo, 'B');
    writeFileSync(join(repo.dir, 'b.txt'), 'b.txt by B\n');
    git(repo, ['add', 'b.txt'], b.env);
    writeFileSync(join(repo.dir, 'a.txt'), 'a.txt by A\n');
    git(repo, ['add', 'a.txt'], a.env);
    git(repo, ['commit', '-q', '-m', 'A'], a.env);
    // Before the refresh, B's view is stale: its index would undo A's a.txt.
    expect(git(repo, ['diff', '--cached', '--name-only', 'HEAD'], b.env).split('\n').filter(Boolean).sort()).toEqual(['a.txt', 'b.txt']);
    expect(await preBash(repo, b, 'ls -la', hook)).toBe('');
    const notice = await preBash(repo, b, 'cd sub && git status', hook);
    expect(JSON.parse(notice).systemMessage).toMatch(/HEAD moved .* plus your 1 staged change/);
    expect(git(repo, ['diff', '--cached', '--name-only', 'HEAD'], b.env).trim()).toBe('b.txt');
    expect(await preBash(repo, b, 'git status', hook)).toBe(''); // fresh now: nothing to do
    // git commit -a after another commit: still only B's changes.
    writeFileSync(join(repo.dir, 'c.txt'), 'c.txt by B\n');
    git(repo, ['commit', '-q', '-a', '-m', 'B -a'], b.env);
    expect(changedPaths(repo)).toEqual(['b.txt', 'c.txt']);
    expect(fileAt(repo, 'HEAD', 'a.txt')).toBe('a.txt by A\n');
  });

  it('a path both sessions staged stops the second commit and must be staged again', async () => {
    const repo = await setUp();
    const a = await startSession(repo, 'A');
    const b = await startSession(repo, 'B');
    writeFileSync(join(repo.dir, 'c.txt'), 'c.txt by B\n');
    git(repo, ['add', 'c.txt'], b.env);
    writeFileSync(join(repo.dir, 'c.txt'), 'c.txt by A\n');
    git(repo, ['add', 'c.txt'], a.env);
    git(repo, ['commit', '-q', '-m', 'A: c'], a.env);
    const refused = tryGit(repo, ['commit', '-q', '-m', 'B: c'], b.env);
    expect(refused.ok).toBe(false);
    expect(refused.stderr).toMatch(/commit refused: another session committed changes to a path you staged[\s\S]*c\.txt/);
    expect(fileAt(repo, 'HEAD', 'c.txt')).toBe('c.txt by A\n');
    writeFileSync(join(repo.dir, 'c.txt'), 'c.txt by A and B\n');
    git(repo, ['add', 'c.txt'], b.env);
    git(repo, ['commit', '-q', '-m', 'B: c again'], b.env);
    expect(fileAt(repo, 'HEAD', 'c.txt')).toBe('c.txt by A and B\n');
  });

  it('records each commit as a `committed` event that the status line shows to others', async () => {
    const repo = await setUp();
    const a = await startSession(repo, 'A');
    writeFileSync(join(repo.dir, 'a.txt'), 'a.txt by A\n');
    git(repo, ['add', 'a.txt'], a.env);
    git(repo, ['commit', '-q', '-m', 'A: a'], a.env);
    const sha = git(repo, ['rev-parse', 'HEAD']).trim();
    const events = (await coord(repo, ['events'])).json.events.filter((e: any) => e.type === 'committed');
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ owner: 'claude-A', reason: 'A: a', detail: { sha, branch: 'main', paths: ['a.txt'], paths_total: 1 } });
    const status = (who: string) => ic(repo, ['coord', 'statusline'], { input: JSON.stringify({ session_id: who, workspace: { current_dir: repo.dir } }) });
    expect((await status('B')).stdout).toMatch(/HEAD moved by claude-A (\d+s|just now)/);
    expect((await status('A')).stdout).not.toMatch(/HEAD moved/);
  });

  it("session end deletes the session's index; sweep deletes those idle for 24 h (by their files and their owner's activity); doctor counts them", async () => {
    const repo = await setUp();
    const a = await startSession(repo, 'A');
    const b = await startSession(repo, 'B');
    const doctor = await ic(repo, ['doctor']);
    expect(doctor.json.checks.find((check: any) => check.name === 'staging_areas')).toMatchObject({ ok: true, detail: expect.stringMatching(/^2 private staging areas/) });
    const end = JSON.stringify({ session_id: 'A', cwd: repo.dir, hook_event_name: 'SessionEnd' });
    expect((await ic(repo, ['coord', 'hook', 'claude-session-end'], { input: end })).exitCode).toBe(0);
    expect(existsSync(a.index)).toBe(false);
    expect(existsSync(`${a.index}.base`)).toBe(false);
    expect(existsSync(b.index)).toBe(true);
    const soon = await coord(repo, ['sweep'], { env: { IC_NOW: new Date(Date.now() + 3_600_000).toISOString() } });
    expect(soon.json).toMatchObject({ index_files: 0 });
    expect(existsSync(b.index)).toBe(true);
    // Idle by the database's clock alone is not enough: the index files themselves must be a day old too.
    expect((await coord(repo, ['reserve', 'other.txt', '--owner', 'carol'], { env: { IC_NOW: new Date(Date.now() + 20 * 3_600_000).toISOString() } })).exitCode).toBe(0);
    const later = { IC_NOW: new Date(Date.now() + 25 * 3_600_000).toISOString() };
    expect((await coord(repo, ['sweep'], { env: later })).json).toMatchObject({ index_files: 0 });
    expect(existsSync(b.index)).toBe(true);
    const dayOld = new Date(Date.now() - 25 * 3_600_000);
    for (const file of [b.index, `${b.index}.base`]) utimesSync(file, dayOld, dayOld);
    expect((await coord(repo, ['sweep', '--dry-run'], { env: later })).json).toMatchObject({ index_files: 1 });
    expect(existsSync(b.index)).toBe(true);
    expect((await coord(repo, ['sweep'], { env: later })).json).toMatchObject({ index_files: 1 });
    expect(existsSync(b.index)).toBe(false);
    expect(existsSync(`${b.index}.base`)).toBe(false);
    // A session still pointing at a swept index must not commit an index ic knows nothing about.
    writeFileSync(join(repo.dir, 'b.txt'), 'b.txt by B\n');
    git(repo, ['add', 'b.txt'], b.env);
    const refused = tryGit(repo, ['commit', '-q', '-m', 'B after the sweep'], b.env);
    expect(refused.ok).toBe(false);
    expect(refused.stderr).toMatch(/private staging area that no longer exists/);
    expect(changedPaths(repo)).toEqual(['a.txt', 'b.txt', 'c.txt']); // HEAD is still the first commit
  });

  it('other agents get theirs from `hook git-index-path` (IC_OWNER), and it behaves the same', async () => {
    const repo = await setUp();
    const printed = await ic(repo, ['coord', 'hook', 'git-index-path'], { env: { IC_OWNER: 'aider-1' } });
    expect(printed.exitCode).toBe(0);
    const index = printed.stdout.trim();
    expect(index).toMatch(/[\\/]\.git[\\/]ic[\\/]index[\\/]aider-1@[0-9a-f]{8}$/);
    expect(existsSync(index)).toBe(true);
    const aider = { IC_OWNER: 'aider-1', GIT_INDEX_FILE: index };
    const a = await startSession(repo, 'A');
    writeFileSync(join(repo.dir, 'c.txt'), 'c.txt by aider\n');
    git(repo, ['add', 'c.txt'], aider);
    writeFileSync(join(repo.dir, 'a.txt'), 'a.txt by A\n');
    git(repo, ['add', 'a.txt'], a.env);
    git(repo, ['commit', '-q', '-m', 'A'], a.env);
    git(repo, ['commit', '-q', '-m', 'aider'], aider);
    expect(changedPaths(repo)).toEqual(['c.txt']);
    expect(fileAt(repo, 'HEAD', 'a.txt')).toBe('a.txt by A\n');
    // No IC_OWNER: no owner, while the repository's SQLite file did not exist when session A started. A server
    // database always exists, so SessionStart registered A with this test process as its client, and a command
    // this process runs acts as A (as one from A's shell does): the index is A's.
    const unnamed = await ic(repo, ['coord', 'hook', 'git-index-path'], {});
    if (onPostgres) expect(unnamed.stdout.trim()).toBe(a.index);
    else expect(unnamed.exitCode).toBe(1);
  });
});
