import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ic, makeTempRepo, type TempRepo } from '../support/cli';

// `coord install|uninstall --gemini|--copilot|--opencode` in a real repository: the files, the
// .git/info/exclude block, the client trust files (in a scratch HOME), and uninstall's exact reversal.

let repo: TempRepo;
let home: string;
beforeEach(() => {
  repo = makeTempRepo('ic-install-agents-');
  home = mkdtempSync(join(tmpdir(), 'ic-install-agents-home-'));
});
afterEach(() => {
  repo.cleanup();
  rmSync(home, { recursive: true, force: true });
});

const run = (args: string[]) =>
  ic(repo, ['coord', ...args], {
    env: {
      HOME: home,
      PI_CODING_AGENT_DIR: undefined,
      CLINE_DATA_DIR: undefined,
      GEMINI_CLI_HOME: undefined,
      GEMINI_CLI_TRUSTED_FOLDERS_PATH: undefined,
      COPILOT_HOME: undefined,
      GEMINI_CLI_TRUST_WORKSPACE: undefined,
      COPILOT_ALLOW_ALL: undefined,
    },
  });
const status = () => execFileSync('git', ['-C', repo.dir, 'status', '--porcelain', '--untracked-files=all'], { encoding: 'utf8' });
const excludePath = () => join(repo.dir, '.git', 'info', 'exclude');

describe('install --gemini --copilot --opencode', () => {
  it('writes the three files, leaves nothing for `git add -A`, and uninstall restores every byte (an existing Gemini settings file and exclude file included)', async () => {
    const settings = `${JSON.stringify({ theme: 'dark', hooks: { Notification: [{ hooks: [{ type: 'command', command: 'notify-send hi' }] }] } }, null, 4)}\n`;
    mkdirSync(join(repo.dir, '.gemini'));
    writeFileSync(join(repo.dir, '.gemini', 'settings.json'), settings);
    execFileSync('git', ['-C', repo.dir, 'add', '.gemini/settings.json']);
    execFileSync('git', ['-C', repo.dir, 'commit', '-qm', 'settings']);
    writeFileSync(excludePath(), '# mine\n*.log'); // no final line break
    const install = await run(['install', '--gemini', '--copilot', '--opencode']);
    expect(install.exitCode).toBe(0);
    expect(install.json.changed.map((c: any) => [c.file.replace(repo.dir, '.'), c.action])).toEqual([
      ['./.gemini/settings.json', 'updated'],
      ['./.github/hooks/ic.json', 'created'],
      ['./.opencode/plugin/ic.js', 'created'],
      ['./.git/info/exclude', 'updated'],
    ]);
    expect(install.json.next_steps.join('\n')).toMatch(/Gemini CLI: it runs project hooks only in a trusted folder, and asks at its first start here/);
    const gemini = JSON.parse(readFileSync(join(repo.dir, '.gemini', 'settings.json'), 'utf8'));
    expect(gemini.theme).toBe('dark');
    expect(Object.keys(gemini.hooks)).toEqual(['Notification', 'BeforeTool', 'AfterTool', 'SessionEnd']);
    expect(gemini.hooks.BeforeTool[0]).toMatchObject({ matcher: 'write_file|replace|run_shell_command', hooks: [{ type: 'command', timeout: 10000 }] });
    expect(JSON.parse(readFileSync(join(repo.dir, '.github', 'hooks', 'ic.json'), 'utf8')).hooks.preToolUse[0].bash).toMatch(/ coord hook copilot-pre-tool \|\| \{/);
    expect(readFileSync(join(repo.dir, '.opencode', 'plugin', 'ic.js'), 'utf8')).toContain("hook('opencode-pre-tool'");
    // The user's tracked settings file shows as modified (it is theirs); ic's own files are excluded.
    expect(status()).toBe(' M .gemini/settings.json\n');
    expect(readFileSync(excludePath(), 'utf8')).toContain('\n/.github/hooks/ic.json\n/.opencode/plugin/ic.js\n');
    expect((await run(['install', '--gemini', '--copilot', '--opencode'])).json.changed).toEqual([]);

    const uninstall = await run(['uninstall', '--gemini', '--copilot', '--opencode']);
    expect(uninstall.exitCode).toBe(0);
    expect(readFileSync(join(repo.dir, '.gemini', 'settings.json'), 'utf8')).toBe(settings);
    expect(readFileSync(excludePath(), 'utf8')).toBe('# mine\n*.log');
    expect(existsSync(join(repo.dir, '.github'))).toBe(false);
    expect(existsSync(join(repo.dir, '.opencode'))).toBe(false);
    expect(status()).toBe('');
  });

  it('a bare `install` does not add them; --trust records the folder trust of Gemini and Copilot, and doctor reports each client', async () => {
    expect((await run(['install', '--dry-run'])).json.changed.map((c: any) => c.file).filter((f: string) => /gemini|github|opencode/.test(f))).toEqual([]);
    const before = await run(['install', '--gemini', '--copilot', '--opencode']);
    expect(before.exitCode).toBe(0);
    const untrusted = await ic(repo, ['doctor'], { env: { HOME: home } });
    expect(untrusted.json.checks.filter((c: any) => /gemini|copilot|opencode/.test(c.name)).map((c: any) => [c.name, c.ok, c.severity])).toEqual([
      ['gemini_hooks', true, undefined],
      ['gemini_trust', false, 'notice'],
      ['copilot_hooks', true, undefined],
      ['copilot_trust', false, 'notice'],
      ['opencode_plugin', true, undefined],
    ]);
    // Not yet trusted is a step the client asks for at its first start: doctor says it, and stays healthy.
    expect(untrusted.exitCode).toBe(0);
    expect(untrusted.json.healthy).toBe(true);
    const table = await ic(repo, ['doctor', '--format', 'table'], { env: { HOME: home } });
    expect(table.stdout).toMatch(/: healthy, 2 steps left to you \(see note\)\n/);
    expect(table.stdout).toMatch(/^note {2}gemini_trust /m);
    // A folder the user said not to trust is a warning (exit 1): Gemini will not ask again.
    mkdirSync(join(home, '.gemini'), { recursive: true });
    writeFileSync(join(home, '.gemini', 'trustedFolders.json'), JSON.stringify({ [repo.dir]: 'DO_NOT_TRUST' }));
    const distrusted = await ic(repo, ['doctor'], { env: { HOME: home } });
    expect(distrusted.exitCode).toBe(1);
    expect(distrusted.json.checks.find((c: any) => c.name === 'gemini_trust')).toMatchObject({ ok: false, severity: 'warning' });
    rmSync(join(home, '.gemini', 'trustedFolders.json'));
    mkdirSync(join(home, '.copilot'));
    writeFileSync(join(home, '.copilot', 'config.json'), '// User settings belong in settings.json.\n// This file is managed automatically.\n{\n  "firstLaunchAt": "2026-11-26T08:34:03.795Z"\n}\n');
    const trust = await run(['install', '--gemini', '--copilot', '--trust']);
    expect(trust.json.changed.map((c: any) => [c.file.replace(home, '~'), c.action])).toEqual([
      ['~/.gemini/trustedFolders.json', 'created'],
      ['~/.copilot/config.json', 'updated'],
    ]);
    expect(JSON.parse(readFileSync(join(home, '.gemini', 'trustedFolders.json'), 'utf8'))).toEqual({ [repo.dir]: 'TRUST_FOLDER' });
    const copilot = readFileSync(join(home, '.copilot', 'config.json'), 'utf8');
    expect(copilot.startsWith('// User settings belong in settings.json.\n// This file is managed automatically.\n{')).toBe(true);
    expect(JSON.parse(copilot.replace(/^\/\/.*$/gm, ''))).toEqual({ firstLaunchAt: '2026-11-26T08:34:03.795Z', trustedFolders: [repo.dir] });
    const trusted = await ic(repo, ['doctor'], { env: { HOME: home } });
    expect(trusted.json.checks.filter((c: any) => /_trust$/.test(c.name)).map((c: any) => [c.name, c.ok])).toEqual([
      ['gemini_trust', true],
      ['copilot_trust', true],
    ]);
    expect((await run(['install', '--gemini', '--copilot', '--trust'])).json.changed).toEqual([]);
  });

  it('refuses to overwrite a foreign .github/hooks/ic.json or an unreadable trust file, and writes nothing then', async () => {
    mkdirSync(join(repo.dir, '.github', 'hooks'), { recursive: true });
    writeFileSync(join(repo.dir, '.github', 'hooks', 'ic.json'), '{"version":1,"hooks":{}}\n');
    const foreign = await run(['install', '--copilot', '--opencode']);
    expect(foreign.exitCode).toBe(65);
    expect(foreign.json.error.code).toBe('INVALID_INPUT');
    expect(existsSync(join(repo.dir, '.opencode'))).toBe(false);
    mkdirSync(join(home, '.gemini'));
    writeFileSync(join(home, '.gemini', 'trustedFolders.json'), 'not json');
    const unreadable = await run(['install', '--gemini', '--trust']);
    expect(unreadable.exitCode).toBe(65);
    expect(existsSync(join(repo.dir, '.gemini'))).toBe(false);
    expect(readFileSync(join(home, '.gemini', 'trustedFolders.json'), 'utf8')).toBe('not json');
  });
});

describe('install --pi --cline', () => {
  it("writes pi's extension and Cline's four hook files (executable) beside the user's own files there; uninstall restores every byte", async () => {
    mkdirSync(join(repo.dir, '.clinerules'));
    writeFileSync(join(repo.dir, '.clinerules', 'style.md'), '# Rules\nUse tabs.\n');
    mkdirSync(join(repo.dir, '.pi'));
    writeFileSync(join(repo.dir, '.pi', 'settings.json'), '{ "theme": "dark" }\n');
    execFileSync('git', ['-C', repo.dir, 'add', '.clinerules', '.pi']);
    execFileSync('git', ['-C', repo.dir, 'commit', '-qm', 'rules']);
    writeFileSync(excludePath(), '# mine\n*.log\n');
    const install = await run(['install', '--pi', '--cline']);
    expect(install.exitCode, install.stderr).toBe(0);
    expect(install.json.changed.map((c: any) => [c.file.replace(repo.dir, '.'), c.action])).toEqual([
      ['./.pi/extensions/ic.ts', 'created'],
      ['./.clinerules/hooks/PreToolUse', 'created'],
      ['./.clinerules/hooks/PostToolUse', 'created'],
      ['./.clinerules/hooks/TaskComplete', 'created'],
      ['./.clinerules/hooks/SessionShutdown', 'created'],
      ['./.git/info/exclude', 'updated'],
    ]);
    const extension = readFileSync(join(repo.dir, '.pi', 'extensions', 'ic.ts'), 'utf8');
    expect(extension).toContain("hook('pi-pre-tool'");
    expect(extension).toContain("pi.on('session_shutdown'");
    for (const [event, name] of [
      ['PreToolUse', 'cline-pre-tool'],
      ['PostToolUse', 'cline-post-tool'],
      ['TaskComplete', 'cline-session-end'],
      ['SessionShutdown', 'cline-session-end'],
    ]) {
      const file = join(repo.dir, '.clinerules', 'hooks', event!);
      expect(readFileSync(file, 'utf8')).toMatch(new RegExp(`^#!/bin/sh\\n# ic-cline-hook .*\\n.* coord hook ${name} \\|\\| \\{`));
      expect(statSync(file).mode & 0o777).toBe(0o755);
    }
    expect(status()).toBe('');
    expect((await run(['install', '--pi', '--cline'])).json.changed).toEqual([]);
    const doctor = await ic(repo, ['doctor'], { env: { HOME: home } });
    expect(doctor.json.checks.filter((c: any) => /^(pi|cline)_/.test(c.name)).map((c: any) => [c.name, c.ok])).toEqual([
      ['pi_extension', true],
      ['cline_hooks', true],
    ]);
    // A hook file whose ic is gone is a doctor warning; installing again puts the file right.
    const preToolUse = join(repo.dir, '.clinerules', 'hooks', 'PreToolUse');
    const wanted = readFileSync(preToolUse, 'utf8');
    writeFileSync(preToolUse, wanted.replace(/^'[^']*'/m, "'/nonexistent/ic'"));
    const broken = await ic(repo, ['doctor'], { env: { HOME: home } });
    expect(broken.json.checks.find((c: any) => c.name === 'cline_hooks')).toMatchObject({ ok: false, detail: expect.stringContaining('/nonexistent/ic') });
    expect((await run(['install', '--cline'])).json.changed.map((c: any) => c.file)).toEqual([preToolUse]);
    expect(readFileSync(preToolUse, 'utf8')).toBe(wanted);

    const uninstall = await run(['uninstall', '--pi', '--cline']);
    expect(uninstall.exitCode).toBe(0);
    expect(readFileSync(excludePath(), 'utf8')).toBe('# mine\n*.log\n');
    expect(readFileSync(join(repo.dir, '.clinerules', 'style.md'), 'utf8')).toBe('# Rules\nUse tabs.\n');
    expect(readFileSync(join(repo.dir, '.pi', 'settings.json'), 'utf8')).toBe('{ "theme": "dark" }\n');
    expect(existsSync(join(repo.dir, '.clinerules', 'hooks'))).toBe(false);
    expect(existsSync(join(repo.dir, '.pi', 'extensions'))).toBe(false);
    expect(status()).toBe('');
  });

  it("a bare install finds them by their config dirs; a Cline hook file that is not ic's is refused and nothing is written", async () => {
    mkdirSync(join(home, '.pi'));
    mkdirSync(join(home, '.cline'));
    const detected = await run(['install', '--dry-run']);
    expect(detected.json.targets).toEqual(expect.arrayContaining(['pi', 'cline']));
    expect(detected.json.changed.map((c: any) => c.file.replace(repo.dir, '.'))).toEqual(expect.arrayContaining(['./.pi/extensions/ic.ts', './.clinerules/hooks/PreToolUse']));
    mkdirSync(join(repo.dir, '.clinerules', 'hooks'), { recursive: true });
    writeFileSync(join(repo.dir, '.clinerules', 'hooks', 'PostToolUse'), '#!/bin/sh\necho mine\n');
    const foreign = await run(['install', '--pi', '--cline']);
    expect(foreign.exitCode).toBe(65);
    expect(foreign.json.error.code).toBe('INVALID_INPUT');
    expect(existsSync(join(repo.dir, '.pi'))).toBe(false);
    expect(existsSync(join(repo.dir, '.clinerules', 'hooks', 'PreToolUse'))).toBe(false);
    expect(readFileSync(join(repo.dir, '.clinerules', 'hooks', 'PostToolUse'), 'utf8')).toBe('#!/bin/sh\necho mine\n');
  });
});
