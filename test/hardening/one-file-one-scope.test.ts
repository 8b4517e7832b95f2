// Issue 21, findings 4 and 5, Build 3: one file has one scope. A path inside a submodule is the submodule's
// (the superproject's CLI refuses it, as `git add` does); a work tree reached through a bind mount is the
// same scope as through its own path. Real git repositories, a real submodule, a real bind mount.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { COORD_BIN, IC_BIN, runBin } from '../support/cli';

let dir: string;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'ic-scope-')));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=T', '-c', 'protocol.file.allow=always', ...args], { cwd, stdio: 'pipe' });
const edit = (session: string, file: string, cwd: string) =>
  JSON.stringify({ session_id: session, cwd, hook_event_name: 'PreToolUse', tool_name: 'Edit', tool_input: { file_path: file, old_string: 'a', new_string: 'b' } });
const preEdit = (session: string, file: string, cwd: string) => runBin(IC_BIN, ['coord', 'hook', 'claude-pre-edit'], { cwd, input: edit(session, file, cwd), env: { CLAUDE_PROJECT_DIR: cwd } });
const denied = (result: { json: any }) => result.json?.hookSpecificOutput?.permissionDecision === 'deny';
const held = async (cwd: string) => (await runBin(COORD_BIN, ['list', '--active'], { cwd })).json.locks.map((l: any) => [l.owner, l.pattern]);

function initRepo(path: string): void {
  mkdirSync(path, { recursive: true });
  git(path, 'init', '-q', '-b', 'main');
  writeFileSync(join(path, 'a.txt'), 'a\n');
  git(path, 'add', 'a.txt');
  git(path, 'commit', '-q', '-m', 'first');
}

describe('submodules', () => {
  it("a path inside a submodule is the submodule's: the superproject's CLI refuses it and grants nothing in its own database", async () => {
    const upstream = join(dir, 'upstream');
    const superproject = join(dir, 'super');
    initRepo(upstream);
    initRepo(superproject);
    git(superproject, 'submodule', 'add', '-q', upstream, 'libs/sub');
    const sub = join(superproject, 'libs', 'sub');
    const file = join(sub, 'a.txt');

    // A session in the superproject edits the submodule's file: the lock goes to the submodule's database.
    expect(await preEdit('a', file, superproject)).toMatchObject({ exitCode: 0, stdout: '' });
    expect(await held(sub)).toEqual([['claude-a', 'a.txt']]);

    // The superproject's CLI, naming it however, is refused (65) and its own database holds nothing.
    for (const args of [
      ['reserve', 'libs/sub/a.txt'],
      ['reserve', 'libs/sub/'],
      ['reserve', ':/libs/sub/*.txt'],
      ['check', 'libs/sub/a.txt'],
    ]) {
      const result = await runBin(COORD_BIN, args, { cwd: superproject, env: { IC_OWNER: 'bob' } });
      expect(result.exitCode, args.join(' ')).toBe(65);
      expect(result.json.error).toMatchObject({ code: 'OUTSIDE_SCOPE', repository: sub });
      expect(result.json.error.hint).toContain(sub);
    }
    expect(await held(superproject)).toEqual([]);
    // Named from inside the submodule, the CLI meets the hook's lock; a second session is denied too.
    const fromInside = await runBin(COORD_BIN, ['reserve', 'a.txt'], { cwd: sub, env: { IC_OWNER: 'bob' } });
    expect(fromInside.exitCode).toBe(1);
    expect(fromInside.json.error.conflicts[0].held.owner).toBe('claude-a');
    expect(denied(await preEdit('b', file, superproject))).toBe(true);
    // The superproject's own files are still its own.
    expect((await runBin(COORD_BIN, ['reserve', 'a.txt', 'libs/*.md'], { cwd: superproject, env: { IC_OWNER: 'bob' } })).exitCode).toBe(0);
  });
});

// A bind mount needs root (or a user namespace); where it cannot be made, this says so and does not run.
function canBindMount(): boolean {
  const probe = mkdtempSync(join(tmpdir(), 'ic-mount-probe-'));
  try {
    mkdirSync(join(probe, 'a'));
    mkdirSync(join(probe, 'b'));
    if (spawnSync('mount', ['--bind', join(probe, 'a'), join(probe, 'b')]).status !== 0) return false;
    spawnSync('umount', [join(probe, 'b')]);
    return true;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
}

describe('bind mounts', () => {
  const mountable = canBindMount();

  it.skipIf(!mountable)('one work tree under two paths (host and devcontainer) is one scope: the second edit is denied', async () => {
    const host = join(dir, 'host', 'proj');
    const container = join(dir, 'workspace');
    initRepo(host);
    mkdirSync(container);
    execFileSync('mount', ['--bind', host, container]);
    try {
      expect(await preEdit('a', join(host, 'a.txt'), host)).toMatchObject({ exitCode: 0, stdout: '' });
      // Through the mount: the same database file, and now the same scope.
      const b = await preEdit('b', join(container, 'a.txt'), container);
      expect(denied(b)).toBe(true);
      expect(b.json.hookSpecificOutput.permissionDecisionReason).toContain('claude-a');
      const cli = await runBin(COORD_BIN, ['reserve', 'a.txt'], { cwd: container, env: { IC_OWNER: 'carol' } });
      expect(cli.exitCode).toBe(1);
      expect(cli.json.error.conflicts[0].held).toMatchObject({ owner: 'claude-a', scope: host });
      // The first spelling is the scope's key from both sides; a lock taken through the mount is seen from the host.
      expect((await runBin(COORD_BIN, ['reserve', 'b.txt'], { cwd: container, env: { IC_OWNER: 'carol' } })).json.locks[0].scope).toBe(host);
      const fromHost = await runBin(COORD_BIN, ['check', 'b.txt'], { cwd: host, env: { IC_OWNER: 'dave' } });
      expect(fromHost.exitCode).toBe(1);
      expect(fromHost.json).toMatchObject({ free: false, conflicts: [{ held: { owner: 'carol' } }] });
    } finally {
      execFileSync('umount', [container]);
    }
  });

  // A container: its own mount namespace, where the host's path does not exist at all (hidden by a tmpfs).
  it.skipIf(!mountable)('inside a separate mount namespace where the host path is hidden, the host lock is met and named by its host path', async () => {
    const hostParent = join(dir, 'host');
    const host = join(hostParent, 'proj');
    const container = join(dir, 'workspace');
    initRepo(host);
    mkdirSync(container);
    expect(await preEdit('a', join(host, 'a.txt'), host)).toMatchObject({ exitCode: 0, stdout: '' });
    const script = 'mount --make-rprivate / && mount --bind "$1" "$2" && mount -t tmpfs none "$3" && test ! -e "$1" && cd "$2" && exec "$4" coord hook claude-pre-edit';
    const input = edit('b', join(container, 'a.txt'), container);
    const inside = spawnSync('unshare', ['-m', 'sh', '-c', script, 'sh', host, container, hostParent, IC_BIN], { input, encoding: 'utf8', env: { ...process.env, IC_DB: '', IC_OWNER: '' } });
    expect(inside.status, inside.stderr).toBe(0);
    const reply = JSON.parse(inside.stdout);
    expect(reply.hookSpecificOutput.permissionDecision).toBe('deny');
    expect(reply.hookSpecificOutput.permissionDecisionReason).toContain('claude-a');
    expect(await held(host)).toEqual([['claude-a', 'a.txt']]);
  });
});
