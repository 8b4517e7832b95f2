import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { coord, ic, IC_BIN, makeTempRepo, REPO_ROOT, runBin, type TempRepo } from '../support/cli';
import { git, writeFile, writeScript } from '../hooks/git';
import { hookCommand } from '../../src/hooks/install/entries';

const BIN = realpathSync(IC_BIN);
const Q = `'${BIN.replace(/'/g, `'\\''`)}'`;
// The installed command line for a hook (its ic-is-gone fallback is tested on its own below).
const cmd = (name: string) => hookCommand({ kind: 'path', bin: BIN, node: process.execPath }, name); // the Node that ran install, then bin/ic
const repos: TempRepo[] = [];
function repo(): TempRepo {
  const r = makeTempRepo('ic-install-');
  repos.push(r);
  return r;
}
afterEach(() => {
  while (repos.length) repos.pop()!.cleanup();
});

// A HOME where Claude Code and Codex have config directories, and a PATH without either program:
// install with no client flag finds both by their directories.
function bothClients(r: TempRepo): Record<string, string> {
  const home = join(r.dir, '.home');
  execFileSync('mkdir', ['-p', join(home, '.claude'), join(home, '.codex')]);
  return { HOME: home, CODEX_HOME: join(home, '.codex'), PATH: noIcOnPath.PATH };
}

function snapshot(files: string[]): Record<string, string | null> {
  return Object.fromEntries(files.map((f) => [f, existsSync(f) ? `${statSync(f).mode.toString(8)}:${readFileSync(f, 'utf8')}` : null]));
}

// The installed hook runs even when ic is not on PATH (only node is).
const noIcOnPath = { PATH: `${dirname(process.execPath)}:/usr/bin:/bin` };

describe('ic coord install / uninstall', () => {
  it('writes exactly this config; installing twice changes nothing', async () => {
    const r = repo();
    const env = bothClients(r);
    const first = await ic(r, ['coord', 'install'], { env });
    expect(first.exitCode).toBe(0);
    expect(first.json).toMatchObject({ ok: true, dry_run: false });
    const settings = join(r.dir, '.claude', 'settings.local.json');
    const codex = join(r.dir, '.codex', 'hooks.json');
    const hook = join(r.dir, '.git', 'hooks', 'pre-commit');
    expect(existsSync(join(r.dir, '.claude', 'settings.json'))).toBe(false);
    expect(first.json.next_steps.join('\n')).toMatch(/do not commit it[\s\S]*statusline[\s\S]*Codex: ic's hooks are trusted in [\s\S]*git-commit-verify: true/);
    const codexConfig = join(env.CODEX_HOME!, 'config.toml');
    const exclude = join(r.dir, '.git', 'info', 'exclude');
    expect(first.json.targets).toEqual(['claude', 'codex', 'git']);
    expect(first.json.changed).toEqual([
      { file: settings, action: 'created' },
      { file: codex, action: 'created' },
      { file: codexConfig, action: 'created' }, // Codex's trust for exactly these hooks: Codex skips untrusted ones
      { file: hook, action: 'created' },
      { file: join(r.dir, '.git', 'hooks', 'post-checkout'), action: 'created' }, // worktrees added later get the agent hooks
      { file: join(r.dir, '.git', 'hooks', 'reference-transaction'), action: 'created' }, // the guard where --no-verify skips pre-commit
      { file: exclude, action: 'updated' },
    ]);
    const edits = 'Edit|Write|MultiEdit|NotebookEdit|mcp__.*';
    expect(JSON.parse(readFileSync(settings, 'utf8'))).toEqual({
      hooks: {
        PreToolUse: [
          { matcher: edits, hooks: [{ type: 'command', command: cmd('claude-pre-edit'), timeout: 10 }] },
          { matcher: 'Bash', hooks: [{ type: 'command', command: cmd('claude-pre-shell'), timeout: 10 }] },
        ],
        PostToolUseFailure: [{ matcher: edits, hooks: [{ type: 'command', command: cmd('claude-edit-refused'), timeout: 5 }] }],
        PermissionDenied: [{ matcher: edits, hooks: [{ type: 'command', command: cmd('claude-edit-refused'), timeout: 5 }] }],
        SessionStart: [{ hooks: [{ type: 'command', command: cmd('claude-session-start'), timeout: 10 }] }],
        UserPromptSubmit: [{ hooks: [{ type: 'command', command: cmd('claude-prompt'), timeout: 5 }] }],
        Stop: [{ hooks: [{ type: 'command', command: cmd('claude-turn-end'), timeout: 5 }] }],
        SubagentStop: [{ hooks: [{ type: 'command', command: cmd('claude-subagent-stop'), timeout: 5 }] }],
        SessionEnd: [{ hooks: [{ type: 'command', command: cmd('claude-session-end'), timeout: 5 }] }],
        PostToolUse: [{ matcher: 'Bash|Edit|Write|MultiEdit|NotebookEdit|mcp__.*', hooks: [{ type: 'command', command: cmd('claude-post-tool'), timeout: 10 }] }],
      },
    });
    expect(JSON.parse(readFileSync(codex, 'utf8'))).toEqual({
      hooks: {
        PreToolUse: [
          { matcher: 'apply_patch|mcp__.*', hooks: [{ type: 'command', command: cmd('codex-pre-edit'), timeout: 10 }] },
          { matcher: 'Bash|exec_command|shell|local_shell', hooks: [{ type: 'command', command: cmd('codex-pre-shell'), timeout: 10 }] },
        ],
        SessionEnd: [{ hooks: [{ type: 'command', command: cmd('codex-session-end'), timeout: 3 }] }],
        PostToolUse: [{ matcher: 'Bash|exec_command|shell|local_shell|apply_patch|mcp__.*', hooks: [{ type: 'command', command: cmd('codex-post-tool'), timeout: 10 }] }],
        Stop: [{ hooks: [{ type: 'command', command: cmd('codex-turn-end'), timeout: 10 }] }],
        UserPromptSubmit: [{ hooks: [{ type: 'command', command: cmd('codex-prompt'), timeout: 10 }] }],
      },
    });
    const template = readFileSync(join(REPO_ROOT, 'scripts', 'git-pre-commit.sh'), 'utf8');
    expect(readFileSync(hook, 'utf8')).toBe(template.replace("ic_bin='ic'", `ic_bin=${Q}`));
    expect(statSync(hook).mode & 0o111).not.toBe(0);
    const before = snapshot([settings, codex, hook]);
    const mtimes = [settings, codex, hook].map((f) => statSync(f).mtimeMs);
    const second = await ic(r, ['coord', 'install'], { env });
    expect(second.json).toMatchObject({ ok: true, changed: [], dry_run: false });
    expect(second.json.next_steps.join('\n')).not.toMatch(/trust/); // a re-run never asks for a step that is done
    expect(snapshot([settings, codex, hook])).toEqual(before);
    expect([settings, codex, hook].map((f) => statSync(f).mtimeMs)).toEqual(mtimes);
    const gone = await ic(r, ['coord', 'uninstall'], { env });
    expect(gone.json.changed.map((c: any) => c.action)).toEqual(['removed', 'removed', 'removed', 'removed', 'removed', 'removed', 'updated']);
    expect(existsSync(codexConfig)).toBe(false);
    expect(existsSync(join(r.dir, '.claude'))).toBe(false);
    expect(existsSync(join(r.dir, '.codex'))).toBe(false);
    expect(existsSync(hook)).toBe(false);
  });

  it('--dry-run writes nothing; flags pick targets', async () => {
    const r = repo();
    const dry = await ic(r, ['coord', 'install', '--dry-run'], { env: bothClients(r) });
    expect(dry.json.dry_run).toBe(true);
    expect(dry.json.changed).toHaveLength(7); // Claude and Codex settings, Codex's trust, pre-commit, post-checkout, reference-transaction, exclude
    expect(existsSync(join(r.dir, '.claude'))).toBe(false);
    expect(existsSync(join(r.dir, '.git', 'hooks', 'pre-commit'))).toBe(false);
    const codexOnly = await ic(r, ['coord', 'install', '--codex', '--no-trust'], { env: { CODEX_HOME: join(r.dir, '.codex-home') } });
    expect(codexOnly.json.changed.map((c: any) => c.file)).toEqual([join(r.dir, '.codex', 'hooks.json'), join(r.dir, '.git', 'info', 'exclude')]);
    expect(codexOnly.json.next_steps.join('\n')).toMatch(/Codex runs project hooks only once you trust them/);
  });

  it("--shared: the committed settings.json calls ic from PATH; keeps the user's settings and pre-existing hook; both hooks run; uninstall restores byte for byte", async () => {
    const r = repo();
    const settings = join(r.dir, '.claude', 'settings.json');
    const userSettings =
      '{\n  "permissions": {\n    "allow": ["Bash(npm test)"]\n  },\n  "hooks": {\n    "PreToolUse": [\n      {\n        "matcher": "Bash",\n        "hooks": [\n          {\n            "type": "command",\n            "command": "echo user-hook"\n          }\n        ]\n      }\n    ]\n  }\n}\n';
    writeFile(r.dir, '.claude/settings.json', userSettings);
    const hook = join(r.dir, '.git', 'hooks', 'pre-commit');
    writeScript(hook, '#!/bin/sh\necho ran >> "$(git rev-parse --show-toplevel)/previous-hook-ran"\n');
    const before = snapshot([settings, hook]);
    const install = await ic(r, ['coord', 'install', '--claude', '--git', '--shared']);
    expect(install.json.next_steps[0]).toMatch(/commit \.claude\/settings\.json; every teammate needs `ic` on PATH/);
    expect(install.json.changed).toEqual([
      { file: settings, action: 'updated' },
      { file: `${hook}.ic-backup`, action: 'backed_up' },
      { file: hook, action: 'created' },
      { file: join(r.dir, '.git', 'hooks', 'post-checkout'), action: 'created' },
      { file: join(r.dir, '.git', 'hooks', 'reference-transaction'), action: 'created' },
    ]);
    const merged = JSON.parse(readFileSync(settings, 'utf8'));
    expect(merged.permissions).toEqual({ allow: ['Bash(npm test)'] });
    expect(merged.hooks.PreToolUse[0].hooks[0].command).toBe('echo user-hook');
    expect(merged.hooks.PreToolUse[1].hooks[0].command).toBe(hookCommand({ kind: 'on-path' }, 'claude-pre-edit'));
    expect(readFileSync(settings, 'utf8')).not.toContain(BIN);
    expect((await ic(r, ['coord', 'install', '--claude', '--git', '--shared'])).json.changed).toEqual([]);

    await coord(r, ['reserve', 'held.ts', '--owner', 'alice']);
    writeFile(r.dir, 'held.ts');
    await git(r.dir, ['add', 'held.ts']);
    const blocked = await git(r.dir, ['commit', '-q', '-m', 'x'], { IC_OWNER: 'bob', ...noIcOnPath });
    expect(blocked.exitCode).toBe(1);
    expect(blocked.stderr).toContain('alice');
    expect(readFileSync(join(r.dir, 'previous-hook-ran'), 'utf8')).toBe('ran\n');

    const uninstall = await ic(r, ['coord', 'uninstall', '--claude', '--git']);
    expect(uninstall.json.changed).toEqual([
      { file: settings, action: 'updated' },
      { file: hook, action: 'restored' },
      { file: join(r.dir, '.git', 'hooks', 'reference-transaction'), action: 'removed' },
      { file: join(r.dir, '.git', 'hooks', 'post-checkout'), action: 'removed' },
    ]);
    expect(snapshot([settings, hook, `${hook}.ic-backup`])).toEqual({ ...before, [`${hook}.ic-backup`]: null });
    expect((await ic(r, ['coord', 'uninstall'])).json.changed).toEqual([]);
  });

  it('refuses to touch a settings file that is not JSON', async () => {
    const r = repo();
    writeFile(r.dir, '.claude/settings.local.json', '{ "broken": ');
    const result = await ic(r, ['coord', 'install']);
    expect(result.exitCode).toBe(65);
    expect(result.json.error.code).toBe('INVALID_INPUT');
    expect(readFileSync(join(r.dir, '.claude', 'settings.local.json'), 'utf8')).toBe('{ "broken": ');
    expect(existsSync(join(r.dir, '.codex'))).toBe(false);
  });

  it('husky-style core.hooksPath: .husky/pre-commit still runs, and comes back on uninstall', async () => {
    const r = repo();
    await git(r.dir, ['config', 'core.hooksPath', '.husky']);
    const userHook = join(r.dir, '.husky', 'pre-commit');
    writeScript(userHook, '#!/usr/bin/env sh\necho husky >> husky-ran\n');
    const before = snapshot([userHook]);
    const install = await ic(r, ['coord', 'install', '--git']);
    expect(install.json.changed.map((c: any) => c.file)).toEqual([`${userHook}.ic-backup`, userHook, join(r.dir, '.husky', 'post-checkout'), join(r.dir, '.husky', 'reference-transaction')]);
    await coord(r, ['reserve', 'x.ts', '--owner', 'alice']);
    writeFile(r.dir, 'x.ts');
    await git(r.dir, ['add', 'x.ts']);
    expect((await git(r.dir, ['commit', '-q', '-m', 'x'], { IC_OWNER: 'bob' })).exitCode).toBe(1);
    expect(readFileSync(join(r.dir, 'husky-ran'), 'utf8')).toBe('husky\n');
    expect((await git(r.dir, ['commit', '-q', '-m', 'x'], { IC_OWNER: 'alice' })).exitCode).toBe(0);
    await ic(r, ['coord', 'uninstall', '--git']);
    expect(snapshot([userHook])).toEqual(before);
  });

  it('husky 9 (core.hooksPath .husky/_ with a stub that finds the script by its own name) keeps working', async () => {
    const r = repo();
    await git(r.dir, ['config', 'core.hooksPath', '.husky/_']);
    writeScript(join(r.dir, '.husky', '_', 'pre-commit'), '#!/usr/bin/env sh\n. "$(dirname "$0")/h"\n');
    writeScript(join(r.dir, '.husky', '_', 'h'), '#!/usr/bin/env sh\nn=$(basename "$0")\ns=$(dirname "$(dirname "$0")")/$n\n[ ! -f "$s" ] && exit 0\nsh -e "$s" "$@"\n');
    writeScript(join(r.dir, '.husky', 'pre-commit'), 'echo husky9 >> husky9-ran\n');
    await ic(r, ['coord', 'install', '--git']);
    expect(readFileSync(join(r.dir, '.husky', '_', 'pre-commit'), 'utf8')).toContain("chain_mode='same-name'");
    writeFile(r.dir, 'y.ts');
    await git(r.dir, ['add', 'y.ts']);
    expect((await git(r.dir, ['commit', '-q', '-m', 'y'], { IC_OWNER: 'bob' })).exitCode).toBe(0);
    expect(readFileSync(join(r.dir, 'husky9-ran'), 'utf8')).toBe('husky9\n');
  });

  it('a linked worktree installs into the shared hooks directory', async () => {
    const r = repo();
    writeFile(r.dir, 'a.txt');
    await git(r.dir, ['add', 'a.txt']);
    await git(r.dir, ['commit', '-q', '-m', 'a']);
    const linked = `${r.dir}-linked`;
    await git(r.dir, ['worktree', 'add', '-q', linked]);
    try {
      const result = await ic(r, ['coord', 'install', '--git'], { cwd: linked });
      expect(result.json.changed).toEqual([
        { file: join(r.dir, '.git', 'hooks', 'pre-commit'), action: 'created' },
        { file: join(r.dir, '.git', 'hooks', 'post-checkout'), action: 'created' },
        { file: join(r.dir, '.git', 'hooks', 'reference-transaction'), action: 'created' },
      ]);
    } finally {
      execFileSync('rm', ['-rf', linked]);
    }
  });
});

describe('ic coord install: moving between settings files', () => {
  it("a 0.1 install in the committed settings.json (this machine's path) moves to settings.local.json; a shared one stays", async () => {
    const r = repo();
    const shared = join(r.dir, '.claude', 'settings.json');
    const local = join(r.dir, '.claude', 'settings.local.json');
    const old = { model: 'opus', hooks: { PreToolUse: [{ matcher: 'Edit|Write|MultiEdit|NotebookEdit', hooks: [{ type: 'command', command: cmd('claude-pre-edit'), timeout: 10 }] }] } };
    writeFile(r.dir, '.claude/settings.json', `${JSON.stringify(old, null, 2)}\n`);
    const moved = await ic(r, ['coord', 'install', '--claude']);
    expect(moved.json.changed).toEqual([
      { file: local, action: 'created' },
      { file: shared, action: 'updated' },
      { file: join(r.dir, '.git', 'info', 'exclude'), action: 'updated' },
    ]);
    expect(JSON.parse(readFileSync(shared, 'utf8'))).toEqual({ model: 'opus' });
    // A teammate's shared install (ic from PATH) is left alone by a personal install.
    await ic(r, ['coord', 'install', '--claude', '--shared']);
    expect(readFileSync(shared, 'utf8')).toContain('exec ic coord hook claude-pre-edit"');
    expect(existsSync(local)).toBe(false);
    const personal = await ic(r, ['coord', 'install', '--claude']);
    expect(personal.json.changed).toEqual([{ file: local, action: 'created' }]);
    expect(readFileSync(shared, 'utf8')).toContain('exec ic coord hook claude-pre-edit"');
  });
});

describe('outside a git repository', () => {
  it('install refuses with 69 and writes nothing, doctor is not healthy; after `ic init` install works', async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'ic-install-nogit-')));
    try {
      const project = join(dir, 'project');
      const home = join(dir, 'home');
      mkdirSync(project);
      mkdirSync(join(home, '.claude'), { recursive: true });
      const env = { HOME: home, GIT_CEILING_DIRECTORIES: dir, PATH: noIcOnPath.PATH };
      const install = await runBin(IC_BIN, ['coord', 'install'], { cwd: project, env });
      expect(install.exitCode).toBe(69);
      expect(install.json.error.code).toBe('DB_UNAVAILABLE');
      expect(install.json.error.hint).toContain('git init');
      expect(install.json.error.hint).toContain('ic init');
      expect(readdirSync(project)).toEqual([]);
      const doctor = await runBin(IC_BIN, ['doctor'], { cwd: project, env });
      expect(doctor.exitCode).toBe(1);
      expect(doctor.json.healthy).toBe(false);
      expect(doctor.json.checks.find((c: any) => c.name === 'location')).toMatchObject({ ok: false, severity: 'warning', fix: expect.stringContaining('git init') });
      expect((await runBin(IC_BIN, ['init'], { cwd: project, env })).exitCode).toBe(0);
      const after = await runBin(IC_BIN, ['coord', 'install'], { cwd: project, env });
      expect(after.exitCode).toBe(0);
      expect(existsSync(join(project, '.claude', 'settings.local.json'))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('ic doctor: installed hooks', () => {
  it('reports hooks that call a missing ic, and Codex hooks Codex does not trust (install --no-trust) until a plain install records the trust', async () => {
    const r = repo();
    const codexHome = join(r.dir, '.codex-home');
    const env = { CODEX_HOME: codexHome };
    await ic(r, ['coord', 'install', '--claude', '--codex', '--no-trust'], { env });
    const before = await ic(r, ['doctor'], { env });
    expect(before.exitCode).toBe(1);
    const check = (result: any, name: string) => result.json.checks.find((c: any) => c.name === name);
    expect(check(before, 'claude_hooks')).toMatchObject({ ok: true });
    expect(check(before, 'codex_trust')).toMatchObject({ ok: false, severity: 'warning', fix: expect.stringContaining('`ic coord install --codex`') });
    const trust = await ic(r, ['coord', 'install', '--codex'], { env });
    expect(trust.json.changed).toEqual([{ file: join(codexHome, 'config.toml'), action: 'created' }]);
    expect(readFileSync(join(codexHome, 'config.toml'), 'utf8')).toMatch(/^\[hooks\.state\.".*\/\.codex\/hooks\.json:pre_tool_use:0:0"\]\ntrusted_hash = "sha256:[0-9a-f]{64}"\n/);
    const again = await ic(r, ['coord', 'install', '--codex', '--trust'], { env });
    expect(again.json.changed).toEqual([]);
    expect(again.json.next_steps.join('\n')).not.toMatch(/trust/);
    const after = await ic(r, ['doctor'], { env });
    expect(after.exitCode).toBe(0);
    expect(check(after, 'codex_trust')).toMatchObject({ ok: true });
    // The settings name an ic that is gone (installed from a checkout that moved).
    const settings = join(r.dir, '.claude', 'settings.local.json');
    writeFileSync(settings, readFileSync(settings, 'utf8').split(Q).join("'/nowhere/bin/ic'"));
    const broken = await ic(r, ['doctor'], { env });
    expect(broken.exitCode).toBe(1);
    expect(check(broken, 'claude_hooks')).toMatchObject({ ok: false, detail: expect.stringContaining('/nowhere/bin/ic') });
  });
});

describe('scripts/*.sh', () => {
  const scripts = ['git-pre-commit.sh', 'git-post-commit.sh', 'git-commit-msg.sh'].map((name) => join(REPO_ROOT, 'scripts', name));
  const hasShellcheck = spawnSync('shellcheck', ['--version']).status === 0;

  it('shellcheck is available in CI', () => {
    if (process.env.CI) expect(hasShellcheck, 'install shellcheck (apt-get install -y shellcheck)').toBe(true);
  });

  it.skipIf(!hasShellcheck)('every script and the installed hook pass shellcheck', async () => {
    const r = repo();
    await ic(r, ['coord', 'install', '--git']);
    const result = spawnSync('shellcheck', ['--shell=bash', ...scripts, join(r.dir, '.git', 'hooks', 'pre-commit')], { encoding: 'utf8' });
    expect(result.stdout + result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it('the installed hook runs under bash --noprofile --norc -euo pipefail', async () => {
    const r = repo();
    await ic(r, ['coord', 'install', '--git']);
    writeFileSync(join(r.dir, 'f.txt'), 'x');
    await git(r.dir, ['add', 'f.txt']);
    const hook = join(r.dir, '.git', 'hooks', 'pre-commit');
    const run = (env: Record<string, string>) =>
      spawnSync('bash', ['--noprofile', '--norc', '-euo', 'pipefail', hook], { cwd: r.dir, encoding: 'utf8', env: { PATH: noIcOnPath.PATH, HOME: r.dir, ...env } });
    expect(run({ IC_OWNER: 'bob' }).status).toBe(0);
    await coord(r, ['reserve', 'f.txt', '--owner', 'alice']);
    const blocked = run({ IC_OWNER: 'bob' });
    expect(blocked.status).toBe(1);
    expect(blocked.stderr).toContain('alice');
    expect(run({ IC_OWNER: 'bob', IC_GUARD: 'off' }).status).toBe(0);
    // ic missing: fail open with a warning, or closed on request.
    const template = join(REPO_ROOT, 'scripts', 'git-pre-commit.sh');
    const missing = spawnSync('bash', ['--noprofile', '--norc', '-euo', 'pipefail', template], { cwd: r.dir, encoding: 'utf8', env: { PATH: '/usr/bin:/bin' } });
    expect(missing.status).toBe(0);
    expect(missing.stderr).toBe('ic is not installed: run `ic coord uninstall` or reinstall\n');
    const closed = spawnSync('bash', ['--noprofile', '--norc', '-euo', 'pipefail', template], { cwd: r.dir, encoding: 'utf8', env: { PATH: '/usr/bin:/bin', IC_HOOK_FAIL: 'closed' } });
    expect(closed.status).toBe(1);
  });
});

describe('installer writes', () => {
  it('replace files whole (temp file + rename), leave no temp file, and keep a symlinked settings file a symlink', async () => {
    const r = repo();
    const dotfiles = join(r.dir, 'dotfiles');
    execFileSync('mkdir', ['-p', dotfiles, join(r.dir, '.claude')]);
    writeFileSync(join(dotfiles, 'claude.json'), '{\n  "permissions": {"allow": []}\n}\n');
    symlinkSync(join(dotfiles, 'claude.json'), join(r.dir, '.claude', 'settings.local.json'));
    expect((await ic(r, ['coord', 'install', '--claude'])).exitCode).toBe(0);
    expect(lstatSync(join(r.dir, '.claude', 'settings.local.json')).isSymbolicLink()).toBe(true);
    const written = JSON.parse(readFileSync(join(dotfiles, 'claude.json'), 'utf8'));
    expect(written.permissions).toEqual({ allow: [] });
    expect(JSON.stringify(written.hooks.PreToolUse)).toContain('claude-pre-edit');
    const leftovers = execFileSync('find', [r.dir, '-name', '*.ic-*.tmp'], { encoding: 'utf8' }).trim();
    expect(leftovers).toBe('');
  });
});
