import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { wantsColor } from '../../src/cli/format';
import { coord, dbEnv, ic, IC_BIN, makeTempRepo, type TempRepo } from '../support/cli';

const repos: TempRepo[] = [];
function repo(): TempRepo {
  const r = makeTempRepo('ic-people-');
  repos.push(r);
  return r;
}
afterEach(() => {
  while (repos.length) repos.pop()!.cleanup();
});

describe('help routing: every spelling shows the command, or names the right one', () => {
  const reserveHelp = /^Usage: ic coordination reserve \[options\] <patterns\.\.\.>/;
  const doctorHelp = /^Usage: ic doctor \[options\]/;
  it.each([
    [['help', 'coord', 'reserve'], reserveHelp],
    [['help', 'reserve'], reserveHelp],
    [['coord', 'help', 'reserve'], reserveHelp],
    [['coord', 'reserve', '--help'], reserveHelp],
    [['reserve', '--help'], reserveHelp],
    [['reserve', '-h'], reserveHelp],
    [['help', 'coord', 'install'], /^Usage: ic coordination install \[options\]/],
    [['help', 'doctor'], doctorHelp],
    [['doctor', '--help'], doctorHelp],
    [['coord', 'doctor', '--help'], doctorHelp],
  ])('ic %j', async (args, help) => {
    const r = repo();
    const result = await ic(r, args as string[]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(help);
  });

  it.each([
    [['reserve', 'x'], '"reserve" is a coord command: ic coord reserve'],
    [['coord', 'doctor'], '"doctor" is an ic command, not a coord one: ic doctor'],
    [['help', 'nope'], 'there is no command named "nope"'],
    [['help', 'coord', 'nope'], 'there is no command named "nope"'],
    [['nope', '--help'], 'there is no command named "nope"'],
  ])('ic %j is a usage error naming the right spelling', async (args, message) => {
    const r = repo();
    const result = await ic(r, args as string[]);
    expect(result.exitCode).toBe(64);
    expect(result.json.error.message).toContain(message);
  });

  it('completion offers only commands that exist under coord', async () => {
    const r = repo();
    const script = (await ic(r, ['completion', 'bash'])).stdout;
    const coordWords = /COMP_CWORD == pos \)\); then COMPREPLY=\(\$\(compgen -W "([^"]*)"/.exec(script)![1]!.split(' ');
    expect(coordWords).not.toContain('man');
    expect(coordWords).not.toContain('doctor');
    for (const word of coordWords.filter((w) => w !== 'help')) expect((await ic(r, ['coord', word, '--help'])).exitCode, word).toBe(0);
  });

  it('bash completion offers lock ids after release and held patterns after --pattern', async () => {
    const r = repo();
    const held = await coord(r, ['reserve', 'src/**', '--owner', 'alice']);
    const id = held.json.locks[0].id;
    const complete = (line: string) => {
      const words = line.split(' ');
      const script = `source <("$IC" completion bash); COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _ic_complete; printf '%s\\n' "\${COMPREPLY[@]}"`;
      const bin = `${r.dir}/.bin`;
      spawnSync('mkdir', ['-p', bin]);
      spawnSync('ln', ['-sf', IC_BIN, `${bin}/ic`]);
      return spawnSync('bash', ['--noprofile', '--norc', '-c', script], { cwd: r.dir, encoding: 'utf8', env: { PATH: `${bin}:${process.env.PATH}`, IC: IC_BIN, ...dbEnv(r) } }).stdout.trim();
    };
    expect(complete('coord release ')).toBe(id);
    expect(complete('coord release --pattern ')).toBe('src/**');
  });
});

describe('output conventions', () => {
  it('on a pipe an error is also one human line on stderr; stdout JSON is unchanged', async () => {
    const r = repo();
    await coord(r, ['reserve', 'a.ts', '--owner', 'alice']);
    const result = await coord(r, ['reserve', 'a.ts', '--owner', 'bob']);
    expect(result.exitCode).toBe(1);
    expect(result.json).toMatchObject({ ok: false, error: { code: 'CONFLICT' } });
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
    expect(result.stderr.split('\n')).toEqual([`ic: ${result.json.error.message.split('\n')[0]}`]);
    const ok = await coord(r, ['list', '--active']);
    expect(ok.stderr).toBe('');
  });

  it('colour: --color beats the environment; NO_COLOR beats FORCE_COLOR and CLICOLOR_FORCE; auto means a terminal', () => {
    expect(wantsColor(undefined, {}, true)).toBe(true);
    expect(wantsColor(undefined, {}, false)).toBe(false);
    expect(wantsColor(undefined, { FORCE_COLOR: '1' }, false)).toBe(true);
    expect(wantsColor(undefined, { CLICOLOR_FORCE: '1' }, false)).toBe(true);
    expect(wantsColor(undefined, { FORCE_COLOR: '0' }, false)).toBe(false);
    expect(wantsColor(undefined, { NO_COLOR: '1', FORCE_COLOR: '1' }, true)).toBe(false);
    expect(wantsColor('always', { NO_COLOR: '1' }, false)).toBe(true);
    expect(wantsColor('never', { FORCE_COLOR: '1' }, true)).toBe(false);
    expect(wantsColor('auto', { TERM: 'dumb' }, true)).toBe(false);
    expect(() => wantsColor('sometimes', {}, true)).toThrow(/auto, always or never/);
  });

  it('forced colour reaches a table on a pipe; without it, none', async () => {
    const r = repo();
    await coord(r, ['reserve', 'a.ts', '--owner', 'alice']);
    const esc = '\u001b[';
    expect((await coord(r, ['events', '--format', 'table'], { env: { NO_COLOR: undefined } })).stdout).not.toContain(esc);
    expect((await coord(r, ['events', '--format', 'table'], { env: { NO_COLOR: undefined, FORCE_COLOR: '1' } })).stdout).toContain(esc);
    expect((await coord(r, ['events', '--format', 'table'], { env: { NO_COLOR: undefined, CLICOLOR_FORCE: '1' } })).stdout).toContain(esc);
    expect((await coord(r, ['events', '--format', 'table', '--color=always'])).stdout).toContain(esc);
    expect((await coord(r, ['events', '--format', 'table', '--color=never'], { env: { FORCE_COLOR: '1' } })).stdout).not.toContain(esc);
    expect((await coord(r, ['events', '--color=loud'])).exitCode).toBe(64);
  });
});

describe('message gaps', () => {
  it('release PATTERN says "did you mean --pattern"; not owner says whose lock and --force', async () => {
    const r = repo();
    const held = await coord(r, ['reserve', 'test/**/*.js', '--owner', 'alice']);
    const byPattern = await coord(r, ['release', 'test/**/*.js', '--owner', 'alice']);
    expect(byPattern.exitCode).toBe(1);
    expect(byPattern.json.error.message).toContain("test/**/*.js: not a lock ID; did you mean `--pattern 'test/**/*.js'`?");
    expect(byPattern.json.error.hint).toBe("Try: coord release --pattern 'test/**/*.js'");
    const notOwner = await coord(r, ['release', held.json.locks[0].id, '--owner', 'bob']);
    expect(notOwner.json.error.code).toBe('NOT_OWNER');
    expect(notOwner.json.error.message).toContain(`${held.json.locks[0].id}: not owner (held by alice; --force releases it anyway`);
    expect(notOwner.json.not_released).toEqual([{ id: held.json.locks[0].id, why: 'not_owner', owner: 'alice' }]);
  });

  it('events: claims and named locks by their kind, conflict rows with the holder', async () => {
    const r = repo();
    await coord(r, ['claim', 'bd-1', '--owner', 'alice']);
    await coord(r, ['claim', 'bd-1', '--owner', 'bob']);
    await coord(r, ['lock', 'tests', '--owner', 'alice']);
    await coord(r, ['reserve', 'src/**', '--owner', 'alice']);
    await coord(r, ['reserve', 'src/x.ts', '--owner', 'bob']);
    const json = (await coord(r, ['events'])).json.events;
    expect(json.map((e: any) => [e.type, e.lock_type, e.pattern])).toEqual([
      ['reserved', 'claim', 'bd-1'],
      ['conflict', 'claim', 'bd-1'],
      ['reserved', 'named', 'tests'],
      ['reserved', 'file', 'src/**'],
      ['conflict', 'file', 'src/x.ts'],
    ]);
    const table = (await coord(r, ['events', '--format', 'table'])).stdout.split('\n');
    expect(table[1]).toMatch(/reserved\s+alice\s+\S+\s+claim:bd-1\s/);
    expect(table[2]).toMatch(/conflict\s+bob\s+\S+\s+claim:bd-1\s+held by alice$/);
    expect(table[3]).toMatch(/lock:tests/);
    expect(table[5]).toMatch(/conflict\s+bob\s+\S+\s+src\/x\.ts\s+held by alice on src\/\*\*$/);
  });

  it('sweep --dry-run does not say "purged 0 locks"', async () => {
    const r = repo();
    const dry = await coord(r, ['sweep', '--dry-run', '--format', 'table']);
    expect(dry.stdout).toBe('would mark 0 expired (dry run)');
    const older = await coord(r, ['sweep', '--dry-run', '--older-than', '1d', '--format', 'table']);
    expect(older.stdout).toBe('would mark 0 expired; would purge 0 locks and 0 events (dry run)');
  });

  it('says "1 lock", not "1 locks"', async () => {
    const r = repo();
    await coord(r, ['reserve', 'a.txt'], { env: { IC_OWNER: 'alice' } });
    const beat = await coord(r, ['heartbeat', '--format', 'table'], { env: { IC_OWNER: 'alice' } });
    expect(beat.stdout).toBe('alice: renewed 1 lock');
  });
});
