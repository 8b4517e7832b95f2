import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { coord, ic, makeTempRepo, type TempRepo } from '../support/cli';
import { git, writeFile } from '../hooks/git';

const repos: TempRepo[] = [];
function repo(): TempRepo {
  const r = makeTempRepo('ic-inverse-');
  repos.push(r);
  return r;
}
afterEach(() => {
  while (repos.length) repos.pop()!.cleanup();
});

// No `claude` or `codex` program on this PATH: only config directories make a client "there".
const PATH = `${dirname(process.execPath)}:/usr/bin:/bin`;

// A HOME with the given clients' config directories, outside the repository.
function home(r: TempRepo, clients: ('claude' | 'codex')[]): Record<string, string> {
  const dir = `${r.dir}-home`;
  repos.push({ dir, db: '', cleanup: () => execFileSync('rm', ['-rf', dir]) });
  for (const client of clients) mkdirSync(join(dir, `.${client}`), { recursive: true });
  return { HOME: dir, CODEX_HOME: join(dir, '.codex'), PATH };
}

function read(file: string): string | null {
  return existsSync(file) ? readFileSync(file, 'utf8') : null;
}

describe('install stages nothing', () => {
  it('`git add -A --dry-run` after a default install lists no ic file; uninstall takes the exclude lines out again', async () => {
    const r = repo();
    const env = home(r, ['claude', 'codex']);
    const exclude = join(r.dir, '.git', 'info', 'exclude');
    const excludeBefore = read(exclude);
    writeFile(r.dir, 'src/app.ts', 'x\n');
    const install = await ic(r, ['coord', 'install'], { env });
    expect(install.exitCode).toBe(0);
    expect(existsSync(join(r.dir, '.claude', 'settings.local.json'))).toBe(true);
    expect(existsSync(join(r.dir, '.codex', 'hooks.json'))).toBe(true);
    const staged = await git(r.dir, ['add', '-A', '--dry-run']);
    expect(staged.stdout.trim().split('\n')).toEqual(["add 'src/app.ts'"]);
    await ic(r, ['coord', 'uninstall'], { env });
    expect(read(exclude)).toBe(excludeBefore);
  });

  it('--shared leaves the files the team commits stageable', async () => {
    const r = repo();
    const env = home(r, ['claude', 'codex']);
    await ic(r, ['coord', 'install', '--shared'], { env });
    const staged = await git(r.dir, ['add', '-A', '--dry-run']);
    expect(staged.stdout.trim().split('\n').sort()).toEqual(["add '.claude/settings.json'", "add '.codex/hooks.json'"]);
  });

  it('a linked worktree reads the same exclude lines (the common git dir)', async () => {
    const r = repo();
    writeFile(r.dir, 'a.txt');
    await git(r.dir, ['add', 'a.txt']);
    await git(r.dir, ['commit', '-q', '-m', 'a']);
    const linked = `${r.dir}-linked`;
    repos.push({ dir: linked, db: '', cleanup: () => execFileSync('rm', ['-rf', linked]) });
    await git(r.dir, ['worktree', 'add', '-q', linked]);
    const result = await ic(r, ['coord', 'install', '--claude'], { cwd: linked, env: home(r, []) });
    expect(result.json.changed.map((c: any) => c.file)).toContain(join(r.dir, '.git', 'info', 'exclude'));
    expect((await git(linked, ['add', '-A', '--dry-run'])).stdout).toBe('');
  });
});

describe('install what is there; doctor per client', () => {
  it('a Claude-only user: install configures Claude Code and the git guard, says Codex was skipped, and doctor exits 0', async () => {
    const r = repo();
    const env = home(r, ['claude']);
    const install = await ic(r, ['coord', 'install'], { env });
    expect(install.json.targets).toEqual(['claude', 'git']);
    expect(install.json.skipped).toEqual(['codex', 'gemini', 'copilot', 'opencode', 'pi', 'cline'].map((target) => ({ target, why: expect.stringContaining(`no \`${target}\` on PATH`) })));
    expect(existsSync(join(r.dir, '.codex'))).toBe(false);
    const human = await ic(r, ['coord', 'install', '--format', 'table'], { env });
    expect(human.stdout).toMatch(/^configured: claude \(.*\.claude exists\), git \(a git repository\)\nskipped: codex \(.*add --codex to install it anyway\)/);
    const doctor = await ic(r, ['doctor'], { env });
    expect(doctor.exitCode).toBe(0);
    const names = doctor.json.checks.map((c: any) => c.name);
    expect(names).toEqual(expect.arrayContaining(['claude_hooks', 'git_guard']));
    expect(names).not.toContain('codex_trust');
    expect(doctor.json.checks.find((c: any) => c.name === 'git_guard')).toMatchObject({ ok: true, detail: expect.stringContaining('pre-commit') });
  });

  it('doctor flags a git guard whose ic is gone', async () => {
    const r = repo();
    await ic(r, ['coord', 'install', '--git']);
    const hook = join(r.dir, '.git', 'hooks', 'pre-commit');
    writeFileSync(hook, readFileSync(hook, 'utf8').replace(/^ic_bin=.*$/m, "ic_bin='/nowhere/bin/ic'"));
    const doctor = await ic(r, ['doctor']);
    expect(doctor.exitCode).toBe(1);
    expect(doctor.json.checks.find((c: any) => c.name === 'git_guard')).toMatchObject({ ok: false, detail: expect.stringContaining('/nowhere/bin/ic') });
  });
});

describe('uninstall is the inverse of install', () => {
  it('every pre-existing file is byte-identical afterwards: user hooks in odd formatting, trust entries, exclude, statusLine', async () => {
    const r = repo();
    const env = home(r, ['claude', 'codex']);
    // The user's own files, written the way people write them (not the way JSON.stringify would).
    const files: Record<string, string> = {
      [join(r.dir, '.claude', 'settings.local.json')]:
        '{\n    "permissions": { "allow": ["Bash(npm test)"] },\n    "hooks": {\n        "PreToolUse": [ { "matcher": "Bash", "hooks": [ {"type":"command","command":"echo mine"} ] } ],\n        "Stop": [{"hooks":[{"type":"command","command":"say done"}]}]\n    }\n}',
      [join(r.dir, '.codex', 'hooks.json')]: '{"hooks":{"SessionEnd":[{"hooks":[{"type":"command","command":"echo bye","timeout":2}]}]}}\n',
      [join(env.CODEX_HOME!, 'config.toml')]: 'model = "o4"\n\n[projects."/somewhere"]\ntrust_level = "trusted"\n',
      [join(r.dir, '.git', 'info', 'exclude')]: '# my excludes\n*.log',
      [join(r.dir, '.git', 'hooks', 'pre-commit')]: '#!/bin/sh\nexit 0\n',
    };
    for (const [file, text] of Object.entries(files)) {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, text, { mode: 0o755 });
    }
    const install = await ic(r, ['coord', 'install', '--trust', '--git-index', '--commit-gate'], { env });
    expect(install.exitCode).toBe(0);
    for (const file of Object.keys(files)) expect(read(file), file).not.toBe(files[file]);
    // The status line install's next steps suggest, added by the user as suggested.
    const settings = join(r.dir, '.claude', 'settings.local.json');
    const suggested = /"statusLine": (\{.*\}) to your settings/.exec(install.json.next_steps.join('\n'))![1]!;
    writeFileSync(settings, read(settings)!.replace(/\n}$/, `,\n    "statusLine": ${suggested}\n}`));
    expect((await ic(r, ['coord', 'install', '--trust'], { env })).json.changed).toEqual([]);
    const uninstall = await ic(r, ['coord', 'uninstall'], { env });
    expect(uninstall.exitCode).toBe(0);
    for (const [file, text] of Object.entries(files)) expect(read(file), file).toBe(text);
    expect(existsSync(join(r.dir, '.git', 'hooks', 'pre-commit.ic-backup'))).toBe(false);
    expect(existsSync(join(r.dir, '.git', 'hooks', 'post-commit'))).toBe(false);
    expect((await ic(r, ['coord', 'uninstall'], { env })).json.changed).toEqual([]);
  });

  it('files install created are gone again, and so are the directories it made for them', async () => {
    const r = repo();
    const env = home(r, ['claude', 'codex']);
    await ic(r, ['coord', 'install', '--trust'], { env });
    expect(existsSync(join(env.CODEX_HOME!, 'config.toml'))).toBe(true);
    await ic(r, ['coord', 'uninstall'], { env });
    for (const path of ['.claude', '.codex', '.git/hooks/pre-commit']) expect(existsSync(join(r.dir, path)), path).toBe(false);
    expect(existsSync(join(env.CODEX_HOME!, 'config.toml'))).toBe(false);
  });

  it('uninstall --purge with live locks changes nothing without --force (no terminal to ask); with --force it deletes the database after listing them', async () => {
    const r = repo();
    await ic(r, ['coord', 'install', '--git']);
    await coord(r, ['reserve', 'src/**', '--owner', 'alice']);
    await coord(r, ['lock', 'tests', '--owner', 'bob']);
    // A shell command's hooks leave the fast path's digest beside the database, and a command whose after
    // hook never came leaves its marker: both go with the database.
    const shell = (id: string) => JSON.stringify({ session_id: 's', cwd: r.dir, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: id });
    await ic(r, ['coord', 'hook', 'claude-pre-shell'], { input: shell('1') });
    await ic(r, ['coord', 'hook', 'claude-pre-shell'], { input: shell('2') });
    expect([readdirSync(`${r.db}-digest`).length, readdirSync(`${r.db}-running`).length]).toEqual([1, 1]);
    expect(existsSync(r.db)).toBe(true);
    const dry = await ic(r, ['coord', 'uninstall', '--purge', '--dry-run']);
    expect(dry.stderr).toMatch(/would delete .*ic\.db with 2 live locks/);
    expect(existsSync(r.db)).toBe(true);
    const refused = await ic(r, ['coord', 'uninstall', '--purge']);
    expect(refused.exitCode).toBe(1);
    expect(refused.json.error).toMatchObject({ code: 'CONFLICT', live_locks: 2, hint: expect.stringContaining('--force') });
    expect(existsSync(r.db)).toBe(true);
    expect(existsSync(join(r.dir, '.git', 'hooks', 'pre-commit'))).toBe(true); // all or nothing: the hooks stay too
    const purge = await ic(r, ['coord', 'uninstall', '--purge', '--force']);
    expect(purge.exitCode).toBe(0);
    expect(purge.stderr).toMatch(/warning: deleting .*ic\.db with 2 live locks:\n {2}file src\/\*\* held by alice\n {2}named tests held by bob/);
    expect(purge.json.changed).toContainEqual({ file: r.db, action: 'removed' });
    expect(existsSync(r.db)).toBe(false);
    expect(existsSync(join(r.dir, '.git', 'ic'))).toBe(false);
  });

  it('a git hook whose ic was removed first prints one clear line and lets the commit through', async () => {
    const r = repo();
    await ic(r, ['coord', 'install', '--git']);
    const hook = join(r.dir, '.git', 'hooks', 'pre-commit');
    writeFileSync(hook, readFileSync(hook, 'utf8').replace(/^ic_bin=.*$/m, "ic_bin='/nowhere/bin/ic'"));
    writeFile(r.dir, 'a.txt');
    await git(r.dir, ['add', 'a.txt']);
    const commit = await git(r.dir, ['commit', '-q', '-m', 'a']);
    expect(commit.exitCode).toBe(0);
    expect(commit.stderr).toBe('ic is not installed: run `ic coord uninstall` or reinstall');
  });
});
