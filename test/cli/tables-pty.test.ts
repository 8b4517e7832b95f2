import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { COORD_BIN, IC_BIN, cleanEnv, coord, ic, makeTempRepo, type TempRepo } from '../support/cli';

// Tables as a person sees them: the bin runs on a real pseudo-terminal (util-linux `script`), so
// stdout.isTTY is true exactly as in a terminal; the pipe cases are the same commands without it.
let repo: TempRepo;
beforeEach(() => {
  repo = makeTempRepo('ic-pty-');
});
afterEach(() => repo.cleanup());

const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;
const ESC = '\u001b[';

async function onTty(bin: string, args: string[], env: Record<string, string | undefined> = {}) {
  const command = [bin, ...args].map(quote).join(' ');
  const result = await execa('script', ['-qec', command, '/dev/null'], { cwd: repo.dir, env: cleanEnv({ TERM: 'xterm', ...env }), extendEnv: false, reject: false, input: '', timeout: 20_000 });
  return { exitCode: result.exitCode, out: String(result.stdout).replace(/\r\n/g, '\n') };
}

const CLAUDE = 'claude-1a2b3c4d-1111-2222-3333-444455556666';
// A time 15 minutes ahead, as the tables show it: the time of day, or month-day and minutes once it is
// tomorrow (these tests use the real clock, so a run in the last quarter hour of a day sees the second form).
const UNTIL = '(?:\\d\\d:\\d\\d:\\d\\d|\\d\\d-\\d\\d \\d\\d:\\d\\d)';
const T0 = '2030-01-01T10:00:00.000Z';

describe('tables on a terminal', () => {
  it('list --active: owner (shortened), pattern, reason, since, until, in colour; NO_COLOR turns colour off', async () => {
    await coord(repo, ['reserve', 'src/**', '--reason', 'refactor auth'], { env: { IC_OWNER: CLAUDE } });
    const coloured = await onTty(COORD_BIN, ['list', '--active'], { NO_COLOR: undefined });
    expect(coloured.exitCode).toBe(0);
    expect(coloured.out).toContain(ESC);
    const plain = await onTty(COORD_BIN, ['list', '--active'], { NO_COLOR: '1' });
    expect(plain.out).not.toContain('\u001b');
    const [header, row] = plain.out.trim().split('\n');
    expect(header!.split(/\s{2,}/)).toEqual(['ID', 'OWNER', 'STATE', 'PATTERN', 'REASON', 'SINCE', 'UNTIL']);
    expect(row).toContain('claude-1a2b3c4d ');
    expect(row).not.toContain(CLAUDE);
    expect(row).toMatch(new RegExp(`active\\s+src/\\*\\*\\s+refactor auth\\s+\\d+s ago\\s+${UNTIL} \\(in 15m\\)`));
    expect(Math.max(...plain.out.split('\n').map((line) => line.length))).toBeLessThan(100);
    const wide = await onTty(COORD_BIN, ['list', '--active', '--wide']);
    expect(wide.out).toContain(CLAUDE);
    expect(wide.out).toContain('TOKEN');
  });

  it('a table on a pipe with --format table or IC_FORMAT=table (never coloured), JSON on a terminal with --format json', async () => {
    await coord(repo, ['reserve', 'a.ts'], { env: { IC_OWNER: 'alice' } });
    const piped = await coord(repo, ['list', '--format', 'table'], { env: { NO_COLOR: undefined } });
    expect(piped.stdout).toMatch(/^ID\s+OWNER/);
    expect(piped.stdout).not.toContain('\u001b');
    expect((await coord(repo, ['list'], { env: { IC_FORMAT: 'table' } })).stdout).toMatch(/^ID\s+OWNER/);
    expect((await coord(repo, ['list', '--format=json'], { env: { IC_FORMAT: 'table' } })).json.locks).toHaveLength(1);
    const tty = await onTty(COORD_BIN, ['list', '--format', 'json']);
    expect(JSON.parse(tty.out).locks[0].pattern).toBe('a.ts');
    const bad = await coord(repo, ['list'], { env: { IC_FORMAT: 'yaml' } });
    expect(bad.exitCode).toBe(64);
    expect(bad.json.error.message).toContain('IC_FORMAT must be table or json');
  });

  it('list --active and who show a lapsed lock that still binds others (state delay); JSON keeps locks as it was', async () => {
    await coord(repo, ['reserve', 'src/**', '--ttl', '1m', '--reason', 'migration'], { env: { IC_OWNER: 'alice', IC_NOW: T0 } });
    const later = { IC_NOW: '2030-01-01T10:01:20.000Z' }; // 20 s into the 60 s lock-delay
    const json = await coord(repo, ['list', '--active'], { env: later });
    expect(json.json.locks).toEqual([]);
    expect(json.json.lock_delay.map((lock: { pattern: string }) => lock.pattern)).toEqual(['src/**']);
    const table = await onTty(COORD_BIN, ['list', '--active'], later);
    expect(table.out).toMatch(/alice\s+delay\s+src\/\*\*\s+migration/);
    expect(table.out).toContain('binds others for 40s');
    const who = await onTty(COORD_BIN, ['who'], later);
    expect(who.out).toMatch(/alice\s+delay\s+src\/\*\*/);
    expect((await coord(repo, ['who'], { env: later })).json.lock_delay).toHaveLength(1);
    const refused = await coord(repo, ['reserve', 'src/a.ts'], { env: { IC_OWNER: 'bob', ...later } });
    expect(refused.json.error.message).toMatch(/lapsed at \d\d:\d\d:\d\d but binds others for its lock-delay until \d\d:\d\d:\d\d \(in 40s, 2030-01-01T10:02:00\.\d{3}Z\)/);
  });

  it('released rows say when and why they ended', async () => {
    const held = await coord(repo, ['reserve', 'a.ts'], { env: { IC_OWNER: 'alice' } });
    await coord(repo, ['release', held.json.locks[0].id], { env: { IC_OWNER: 'alice' } });
    const table = await onTty(COORD_BIN, ['list']);
    expect(table.out).toMatch(/alice\s+released\s+a\.ts\s+-\s+\d+s ago\s+ended \d\d:\d\d:\d\d \(\d+s ago\)/);
    expect(table.out).not.toContain('in 15m');
  });

  it('events on a terminal: the last --limit events, newest last', async () => {
    for (const file of ['a', 'b', 'c']) await coord(repo, ['reserve', `${file}.ts`], { env: { IC_OWNER: 'alice' } });
    const tail = await onTty(COORD_BIN, ['events', '--limit', '2']);
    const rows = tail.out.trim().split('\n').slice(1);
    expect(rows.map((row) => row.split(/\s+/)[5])).toEqual(['b.ts', 'c.ts']);
    const piped = await coord(repo, ['events', '--limit', '2']);
    expect(piped.json.events.map((event: { pattern: string }) => event.pattern)).toEqual(['a.ts', 'b.ts']); // a pipe reads from the start, as before
  });

  it('events --follow on a terminal starts from now and prints rows', async () => {
    await coord(repo, ['reserve', 'old.ts'], { env: { IC_OWNER: 'alice' } });
    const follower = execa('script', ['-qec', `${quote(COORD_BIN)} events --follow`, '/dev/null'], {
      cwd: repo.dir,
      env: cleanEnv({ TERM: 'xterm', IC_POLL_MS: '50' }),
      extendEnv: false,
      reject: false,
      timeout: 20_000,
    });
    let out = '';
    follower.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    await waitFor(() => out.includes('PATTERN'));
    await coord(repo, ['reserve', 'new.ts'], { env: { IC_OWNER: 'bob' } });
    await waitFor(() => out.includes('new.ts'));
    follower.kill('SIGINT');
    await follower;
    expect(out).not.toContain('old.ts');
    expect(out).toMatch(/reserved\s+bob\s+\w{8}\s+new\.ts/);
  });
});

describe('messages', () => {
  it('a conflict says who, what, why, until when (relative and absolute) and what to do next', async () => {
    await coord(repo, ['reserve', 'src/**', '--reason', 'refactor auth'], { env: { IC_OWNER: 'alice' } });
    const refused = await coord(repo, ['reserve', 'src/a.ts'], { env: { IC_OWNER: 'bob' } });
    expect(refused.exitCode).toBe(1);
    const message: string = refused.json.error.message;
    expect(message).toContain("alice's exclusive lock");
    expect(message).toContain('(reason: "refactor auth")');
    expect(message).toMatch(new RegExp(`until ${UNTIL} \\(in 15m, \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\\)`));
    expect(message).toContain('next: retry with --wait 5m, see `coord who`, or ask alice to release it');
    const onTerminal = await onTty(COORD_BIN, ['check', 'src/b.ts']);
    expect(onTerminal.out).toContain('(reason: "refactor auth")');
  });

  it('claims and named locks keep their reason in the conflict', async () => {
    await coord(repo, ['claim', 'issue-14', '--reason', 'fixing the README'], { env: { IC_OWNER: 'alice' } });
    const claim = await coord(repo, ['claim', 'issue-14'], { env: { IC_OWNER: 'bob' } });
    expect(claim.json.error.message).toMatch(/^already claimed by alice \(reason: "fixing the README"\) since .* until .*; next: pick another item/);
    await coord(repo, ['lock', 'tests', '--reason', 'full run'], { env: { IC_OWNER: 'alice' } });
    const lock = await coord(repo, ['lock', 'tests'], { env: { IC_OWNER: 'bob' } });
    expect(lock.json.error.message).toMatch(/^named lock "tests" \(id \w{8}\) is held by alice \(reason: "full run"\), until .*; next: retry with --wait 5m/);
  });

  it('unlock of a lock you do not hold is said without a double negative', async () => {
    const result = await coord(repo, ['unlock', 'tests'], { env: { IC_OWNER: 'bob' } });
    expect(result.exitCode).toBe(1);
    expect(result.json.error.message).toBe('bob does not hold a lock named "tests"; see who holds what: coord who (another owner\'s lock: add --force)');
  });

  it('a grant on a terminal says until when and how to give it back', async () => {
    const granted = await onTty(COORD_BIN, ['reserve', 'a.ts', '--owner', 'alice']);
    expect(granted.out).toMatch(new RegExp(`^granted: a\\.ts to alice until ${UNTIL} \\(in 15m\\)\\s+\\[id (\\w{8}), token \\d+\\]\\ngive it back with: coord release \\w{8} --owner alice`));
  });
});

describe('help', () => {
  it('ic --help lists every command, grouped; ic help CMD and coord help CMD give its help; an unknown one is a usage error', async () => {
    const help = await ic(repo, ['--help']);
    expect(help.exitCode).toBe(0);
    for (const name of ['reserve', 'list', 'who', 'lock', 'claim', 'install', 'events']) expect(help.stdout).toMatch(new RegExp(`\\n  coord ${name} `));
    expect(help.stdout).toContain('ic init');
    expect(help.stdout).toContain('cd your-repo && ic coord install');
    expect((await coord(repo, ['--help'])).stdout).toBe(help.stdout);
    for (const args of [
      ['help', 'reserve'],
      ['coord', 'help', 'reserve'],
      ['coordination', 'reserve', '--help'],
    ]) {
      const one = await ic(repo, args);
      expect(one.exitCode, args.join(' ')).toBe(0);
      expect(one.stdout, args.join(' ')).toContain('Usage: ic coordination reserve');
      expect(one.stdout, args.join(' ')).toContain('Examples:');
    }
    const unknown = await ic(repo, ['help', 'frobnicate']);
    expect(unknown.exitCode).toBe(64);
    expect(unknown.json.error.message).toBe('there is no command named "frobnicate"');
  });

  it('completion: the bash script completes commands and options; zsh and fish print theirs; another shell is a usage error', async () => {
    const script = `source <(${quote(IC_BIN)} completion bash)
COMP_WORDS=(coord res); COMP_CWORD=1; _ic_complete; echo "\${COMPREPLY[*]}"
COMP_WORDS=(ic coord reserve --re); COMP_CWORD=3; _ic_complete; echo "\${COMPREPLY[*]}"
COMP_WORDS=(ic he); COMP_CWORD=1; _ic_complete; echo "\${COMPREPLY[*]}"`;
    const bash = await execa('bash', ['--noprofile', '--norc', '-c', script], { cwd: repo.dir, env: cleanEnv(), extendEnv: false, reject: false });
    expect(bash.stdout.split('\n')).toEqual(['reserve', '--reason', 'help']);
    const zsh = await ic(repo, ['completion', 'zsh']);
    expect(zsh.stdout).toMatch(/^#compdef ic coord\n/);
    const fish = await ic(repo, ['completion', 'fish']);
    expect(fish.stdout).toContain("complete -c coord -n '__fish_seen_subcommand_from reserve' -l reason");
    expect((await ic(repo, ['completion', 'tcsh'])).exitCode).toBe(64);
  });
});

async function waitFor(condition: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error('timed out waiting for output');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
