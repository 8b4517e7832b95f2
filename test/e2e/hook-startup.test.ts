import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, inject } from 'vitest';
import { coord, ic, makeTempRepo, type TempRepo } from '../support/cli';
import { postgresOnly, sqliteOnly } from '../support/engine';
import { parameterOf, withParameter } from '../../src/store/postgres/url';

// A hook runs before every edit and shell command of every agent, so each Node built-in it loads is paid
// thousands of times a day (docs/performance.md). The ones below cost a short-lived process 2–7 ms each and
// only a server connection, a password login or a git process needs them: a hook on SQLite that loads one
// at start-up (a top-level import in a module the hook bundle carries) is a regression no other test sees.
const LOADED_ONLY_WHEN_NEEDED = ['net', 'crypto', 'child_process', 'perf_hooks', 'stream', 'tls', 'worker_threads'];
// What a hook on a server loads for its connection (node-postgres on the main thread: a socket), and what any
// hook loads when its stdin is a socket, as every Node-based agent (and execa here) gives it: a net.Socket makes it
// non-blocking (src/hooks/stdin.ts).
const SERVER_BRIDGE = ['net', 'stream'];
const SOCKET_STDIN = ['net', 'stream'];

describe('what a hook loads', () => {
  let repo: TempRepo;
  let probeDir: string;
  beforeEach(() => {
    repo = makeTempRepo('ic-startup-');
    probeDir = mkdtempSync(join(tmpdir(), 'ic-probe-'));
    // Preloaded into the hook's process: at exit it appends the built-ins loaded after it to a file.
    writeFileSync(
      join(probeDir, 'probe.cjs'),
      `const before = new Set(process.moduleLoadList);
process.on('exit', () => {
  const loaded = process.moduleLoadList.filter((m) => !before.has(m) && m.startsWith('NativeModule ')).map((m) => m.slice(13));
  require('fs').appendFileSync(${JSON.stringify(join(probeDir, 'loaded.jsonl'))}, JSON.stringify(loaded) + '\\n');
});
`,
    );
  });
  afterEach(() => {
    repo.cleanup();
    rmSync(probeDir, { recursive: true, force: true });
  });

  const probed = () => ({ NODE_OPTIONS: `--require ${join(probeDir, 'probe.cjs')}` });
  const loadedByEachCall = (): string[][] =>
    readFileSync(join(probeDir, 'loaded.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as string[]);
  const payload = (tool: Record<string, unknown>) => JSON.stringify({ session_id: 'startup', cwd: repo.dir, hook_event_name: 'PreToolUse', tool_use_id: 't1', ...tool });

  sqliteOnly.it('the edit hook, creating the database and then renewing, and a shell command’s hooks both ways, load none of them but what their socket stdin needs', async () => {
    const edit = payload({ tool_name: 'Edit', tool_input: { file_path: join(repo.dir, 'src/a.ts'), old_string: 'a', new_string: 'b' } });
    const shell = payload({ tool_name: 'Bash', tool_input: { command: 'sed -i s/a/b/ src/b.ts && echo done > notes.txt' } });
    for (const input of [edit, edit]) expect(await ic(repo, ['coord', 'hook', 'claude-pre-edit'], { input, env: probed() })).toMatchObject({ exitCode: 0, stdout: '' });
    for (const fastPath of ['1', '0'])
      for (const hook of ['claude-pre-shell', 'claude-post-tool']) expect((await ic(repo, ['coord', 'hook', hook], { input: shell, env: { ...probed(), IC_FAST_PATH: fastPath } })).exitCode).toBe(0);
    // The calls did their work (so the probe saw the whole path): the edit's file and the shell's are held.
    const held = (await coord(repo, ['list', '--active', '--owner', 'claude-startup'])).json.locks.map((lock: { pattern: string }) => lock.pattern);
    expect(held).toEqual(expect.arrayContaining(['src/a.ts', 'src/b.ts', 'notes.txt']));
    const calls = loadedByEachCall();
    expect(calls).toHaveLength(6);
    for (const loaded of calls) expect(loaded.filter((name) => LOADED_ONLY_WHEN_NEEDED.includes(name)).sort()).toEqual(SOCKET_STDIN);
  });

  // On a server the driver (node-postgres) runs on the hook's thread (docs/design/postgres.md, "The driver"): it
  // loads its socket — node:net, which brings node:stream — and nothing else, over a unix socket and over TCP
  // with a password alike, where the password's SCRAM adds node:crypto (pg's crypto and dns load at first use only).
  postgresOnly.it('the edit hook on a server loads only its socket, over a unix socket and over TCP with a password', async () => {
    const edit = (file: string) => payload({ tool_name: 'Edit', tool_input: { file_path: join(repo.dir, file), old_string: 'a', new_string: 'b' } });
    const overTcp = withParameter(inject('pgTcpUrl'), 'options', parameterOf(repo.db, 'options')!); // the repository's own schema
    execFileSync('git', ['-C', repo.dir, 'commit', '-q', '--allow-empty', '-m', 'root']); // a repository with a history: its key is bound at the first call
    for (const file of ['src/a.ts', 'src/b.ts']) expect(await ic(repo, ['coord', 'hook', 'claude-pre-edit'], { input: edit(file), env: probed() })).toMatchObject({ exitCode: 0, stdout: '' });
    for (const file of ['src/c.ts', 'src/d.ts'])
      expect(await ic(repo, ['coord', 'hook', 'claude-pre-edit'], { input: edit(file), env: { ...probed(), IC_DB: overTcp } })).toMatchObject({ exitCode: 0, stdout: '' });
    const held = (await coord(repo, ['list', '--active', '--owner', 'claude-startup'])).json.locks.map((lock: { pattern: string }) => lock.pattern);
    expect(held).toEqual(expect.arrayContaining(['src/a.ts', 'src/b.ts', 'src/c.ts', 'src/d.ts']));
    const [unix1, unix2, tcp1, tcp2] = loadedByEachCall().map((loaded) => loaded.filter((name) => LOADED_ONLY_WHEN_NEEDED.includes(name)));
    // The first call on each server binds the key to the repository's root commit (one git process, docs/postgres.md);
    // later ones read that from <git common dir>/ic-bound-projects and start no git.
    // Over TCP the password login (SCRAM) loads node:crypto, on the unix socket (trusted) nothing does.
    expect(unix1!.sort()).toEqual([...SERVER_BRIDGE, 'child_process'].sort());
    expect(tcp1!.sort()).toEqual([...SERVER_BRIDGE, 'child_process', 'crypto'].sort());
    expect(unix2!.sort()).toEqual(SERVER_BRIDGE);
    expect(tcp2!.sort()).toEqual([...SERVER_BRIDGE, 'crypto'].sort());
  });

  // A clone named by its root commit found it with two git processes (and a walk of its history) at every call.
  postgresOnly.it('a clone named by its root commit records it as ic.project at its first call, and later calls start no git', async () => {
    execFileSync('git', ['-C', repo.dir, 'config', '--unset', 'ic.project']);
    execFileSync('git', ['-C', repo.dir, 'commit', '-q', '--allow-empty', '-m', 'root']);
    const root = execFileSync('git', ['-C', repo.dir, 'rev-list', '--max-parents=0', 'HEAD'], { encoding: 'utf8' }).trim();
    const edit = (file: string) => payload({ tool_name: 'Edit', tool_input: { file_path: join(repo.dir, file), old_string: 'a', new_string: 'b' } });
    for (const file of ['src/a.ts', 'src/b.ts']) expect(await ic(repo, ['coord', 'hook', 'claude-pre-edit'], { input: edit(file), env: probed() })).toMatchObject({ exitCode: 0, stdout: '' });
    expect(execFileSync('git', ['-C', repo.dir, 'config', '--get', 'ic.project'], { encoding: 'utf8' }).trim()).toBe(root);
    const [first, second] = loadedByEachCall();
    expect(first).toContain('child_process');
    expect(second!.filter((name) => LOADED_ONLY_WHEN_NEEDED.includes(name)).sort()).toEqual(SERVER_BRIDGE); // no child_process: no git
    const locks = (await coord(repo, ['list', '--active', '--owner', 'claude-startup'])).json.locks as { pattern: string; scope: string }[];
    expect(locks.map((lock) => [lock.pattern, lock.scope])).toEqual([
      ['src/a.ts', root],
      ['src/b.ts', root],
    ]);

    // A shallow clone's "root" is where its history was cut: used, as before, but not recorded.
    execFileSync('git', ['-C', repo.dir, 'commit', '-q', '--allow-empty', '-m', 'second']);
    const shallow = join(probeDir, 'shallow');
    execFileSync('git', ['clone', '-q', '--depth', '1', `file://${repo.dir}`, shallow]);
    const shallowEdit = payload({ tool_name: 'Edit', cwd: shallow, tool_input: { file_path: join(shallow, 'src/c.ts'), old_string: 'a', new_string: 'b' } });
    expect(await ic(repo, ['coord', 'hook', 'claude-pre-edit'], { cwd: shallow, input: shallowEdit, env: { IC_DB: repo.db } })).toMatchObject({ exitCode: 0, stdout: '' });
    expect(() => execFileSync('git', ['-C', shallow, 'config', '--get', 'ic.project'], { stdio: 'ignore' })).toThrow();
  });
});
