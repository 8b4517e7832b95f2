import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXAMPLES } from '../../src/cli/help/examples';
import { GROUPS, ROOT_COMMANDS } from '../../src/cli/help/groups';
import { REPO_ROOT, cleanEnv, ic, makeTempRepo, type TempRepo } from '../support/cli';

// Every example a command's --help shows is run as written, in bash, in a fresh repository (after the
// setup lines the examples assume), and must exit as its comment says: "(exit N)", else 0.
let repo: TempRepo;
let home: string;
beforeEach(() => {
  repo = makeTempRepo('ic-help-');
  home = realpathSync(mkdtempSync(join(tmpdir(), 'ic-home-')));
});
afterEach(() => {
  repo.cleanup();
  rmSync(home, { recursive: true, force: true });
});

interface Shown {
  comment: string;
  run: string;
  exit: number;
}

// The examples as a person reads them in `ic help NAME`: "# what it does" then "$ command".
function examplesIn(help: string): Shown[] {
  const section = help.split('\nExamples:\n')[1] ?? '';
  const shown: Shown[] = [];
  const lines = section.split('\n');
  lines.forEach((line, i) => {
    const run = /^ {2}\$ (.*)$/.exec(line)?.[1];
    if (run === undefined) return;
    const comment = /^ {2}# (.*)$/.exec(lines[i - 1] ?? '')?.[1] ?? '';
    shown.push({ comment, run, exit: Number(/\(exit (\d+)/.exec(comment)?.[1] ?? 0) });
  });
  return shown;
}

function bash(script: string) {
  const env = cleanEnv({ HOME: home, CODEX_HOME: join(home, '.codex'), PATH: `${join(REPO_ROOT, 'bin')}:${process.env.PATH}`, IC_POLL_MS: '50' });
  return execa('bash', ['--noprofile', '--norc', '-c', script], { cwd: repo.dir, env, extendEnv: false, reject: false, input: '', timeout: 60_000 });
}

const commandNames = GROUPS.flatMap((group) => group.commands);

describe('help examples', () => {
  it('every command has 1 to 3 examples', () => {
    for (const name of commandNames) {
      const count = EXAMPLES[name]?.examples.length ?? 0;
      expect(count, name).toBeGreaterThanOrEqual(1);
      expect(count, name).toBeLessThanOrEqual(3);
    }
  });

  it.each(commandNames)(
    '%s: each example in its --help runs and exits as documented',
    async (name) => {
      const help = await ic(repo, ['help', name]);
      expect(help.exitCode).toBe(0);
      const shown = examplesIn(help.stdout);
      expect(shown.map((example) => example.run)).toEqual(EXAMPLES[name]!.examples.map((example) => example.run));
      for (const line of EXAMPLES[name]!.setup ?? []) expect((await bash(line)).exitCode, `setup: ${line}`).toBe(0);
      for (const example of shown) {
        const result = await bash(example.run);
        expect(result.exitCode, `${example.run}\n${result.stderr}`).toBe(example.exit);
        expect(result.stderr, example.run).not.toMatch(/\n\s+at |internal error/);
      }
    },
    120_000,
  );

  it('the man page is generated from the same help and examples', async () => {
    const man = await ic(repo, ['man']);
    expect(man.exitCode).toBe(0);
    for (const name of commandNames) expect(man.stdout, name).toContain(`.SS ${ROOT_COMMANDS.includes(name) ? 'ic' : 'coord'} ${name}`);
    expect(man.stdout).toContain('.SH EXIT STATUS');
    const rendered = await execa('man', ['-l', '-'], { input: man.stdout, env: { ...process.env, MANWIDTH: '100' }, reject: false });
    if (rendered.exitCode === 0) expect(rendered.stdout).toContain('coord reserve');
  });

  it('package.json and `ic --version` agree, and -v, -V and --version all print it', async () => {
    const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    for (const flag of ['-v', '-V', '--version']) {
      const result = await ic(repo, [flag]);
      expect(result.exitCode, flag).toBe(0);
      expect(result.stdout.trim(), flag).toBe(version);
    }
  });
});
