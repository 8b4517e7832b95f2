// Issue 21, finding 3 and Build 2: outside git, a database exists only where someone asked for one (`ic init`,
// --db, IC_DB), and one file has one database whichever directory a session started in. Real bin, real dirs.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { COORD_BIN, IC_BIN, runBin } from '../support/cli';

let dir: string;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'ic-nogit-')));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const edit = (session: string, file: string, cwd: string) =>
  JSON.stringify({ session_id: session, cwd, hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: file, content: 'x' } });
const preEdit = (input: string, cwd: string, env: Record<string, string> = {}) => runBin(IC_BIN, ['coord', 'hook', 'claude-pre-edit'], { cwd, input, env: { HOME: dir, ...env } });
const denied = (result: { json: any }) => result.json?.hookSpecificOutput?.permissionDecision === 'deny';
// Every path below `root`, so that "creates nothing" is checked on the whole tree.
const tree = (root: string): string[] => readdirSync(root, { recursive: true, encoding: 'utf8' }).sort();

describe('a hook outside every repository and ic init root', () => {
  it('allows the edit quietly and creates no database, neither in the directory, nor in $HOME, nor at /', async () => {
    mkdirSync(join(dir, 'notes'));
    const before = tree(dir);
    const rootHadIc = existsSync('/.ic');
    const fromDir = await preEdit(edit('s1', join(dir, 'notes', 'a.txt'), dir), dir);
    expect(fromDir).toMatchObject({ exitCode: 0, stdout: '' });
    // A session started at / (finding 3: it created /.ic/ic.db, which then captured every non-git directory).
    const fromRoot = await preEdit(edit('s2', join(dir, 'notes', 'a.txt'), '/'), '/');
    expect(fromRoot).toMatchObject({ exitCode: 0, stdout: '' });
    // Both were allowed because nothing coordinates here, and nothing was created to say otherwise.
    expect(tree(dir)).toEqual(before);
    expect(existsSync('/.ic')).toBe(rootHadIc);
  });
});

describe('a root left at $HOME by ic 0.2', () => {
  it('is reported by ic doctor as a warning with the command that removes it', async () => {
    mkdirSync(join(dir, '.ic'));
    mkdirSync(join(dir, 'notes'));
    const doctor = await runBin(IC_BIN, ['doctor'], { cwd: join(dir, 'notes'), env: { HOME: dir } });
    expect(doctor.exitCode).toBe(1);
    expect(doctor.json.checks.find((c: any) => c.name === 'broad_root')).toMatchObject({ ok: false, severity: 'warning', fix: expect.stringContaining(`rm -r ${join(dir, '.ic')}`) });
    // Elsewhere (not $HOME, not /) an ic init root is not reported.
    const other = await runBin(IC_BIN, ['doctor'], { cwd: join(dir, 'notes'), env: { HOME: '/nonexistent-home' } });
    expect(other.json.checks.map((c: any) => c.name)).not.toContain('broad_root');
  });
});

describe('the CLI outside git', () => {
  it('creates a database only where asked (ic init, --db); otherwise it says how, with 69', async () => {
    const before = tree(dir);
    for (const args of [['reserve', 'a.txt'], ['list'], ['check', 'a.txt'], ['who']]) {
      const result = await runBin(COORD_BIN, args, { cwd: dir, env: { IC_OWNER: 'alice' } });
      expect(result.exitCode, args.join(' ')).toBe(69);
      expect(result.json.error.code).toBe('DB_UNAVAILABLE');
      expect(result.json.error.hint).toContain('ic init');
    }
    expect(tree(dir)).toEqual(before);

    const named = join(dir, 'chosen.db');
    expect((await runBin(COORD_BIN, ['reserve', 'a.txt', '--db', named], { cwd: dir, env: { IC_OWNER: 'alice' } })).exitCode).toBe(0);
    expect(existsSync(named)).toBe(true);
    expect(existsSync(join(dir, '.ic'))).toBe(false);

    expect((await runBin(IC_BIN, ['init'], { cwd: dir })).exitCode).toBe(0);
    expect(existsSync(join(dir, '.ic', 'ic.db'))).toBe(true);
    const reserved = await runBin(COORD_BIN, ['reserve', 'a.txt'], { cwd: dir, env: { IC_OWNER: 'alice' } });
    expect(reserved.exitCode).toBe(0);
    expect(reserved.json.locks[0]).toMatchObject({ scope: dir, pattern: 'a.txt' });
  });

  it('ic init --db outside git still marks the directory as a project root, so its hooks coordinate', async () => {
    const db = join(dir, 'elsewhere.db');
    expect((await runBin(IC_BIN, ['init', '--db', db], { cwd: dir })).exitCode).toBe(0);
    expect(existsSync(join(dir, '.ic'))).toBe(true);
    const file = join(dir, 'a.txt');
    expect(await preEdit(edit('s1', file, dir), dir, { IC_DB: db })).toMatchObject({ exitCode: 0, stdout: '' });
    expect(denied(await preEdit(edit('s2', file, dir), dir, { IC_DB: db }))).toBe(true);
  });
});

describe('outside git, one file has one database', () => {
  it('sessions started in /srv/proj and in /srv meet on /srv/proj/x: the nearest ic init root above the file decides', async () => {
    const srv = join(dir, 'srv');
    const proj = join(srv, 'proj');
    mkdirSync(proj, { recursive: true });
    // Both directories are roots: the session in /srv must still use /srv/proj's database for /srv/proj/x.
    expect((await runBin(IC_BIN, ['init'], { cwd: srv })).exitCode).toBe(0);
    expect((await runBin(IC_BIN, ['init'], { cwd: proj })).exitCode).toBe(0);
    const file = join(proj, 'x');
    const a = await preEdit(edit('a', file, proj), proj, { CLAUDE_PROJECT_DIR: proj });
    expect(a).toMatchObject({ exitCode: 0, stdout: '' });
    const b = await preEdit(edit('b', file, srv), srv, { CLAUDE_PROJECT_DIR: srv });
    expect(denied(b)).toBe(true);
    expect(b.json.hookSpecificOutput.permissionDecisionReason).toContain('claude-a');
    // A relative path from /srv is the same file.
    expect(denied(await preEdit(edit('b', 'proj/x', srv), srv, { CLAUDE_PROJECT_DIR: srv }))).toBe(true);
    // The lock is in /srv/proj's database; /srv's holds nothing.
    const inProj = await runBin(COORD_BIN, ['list', '--active'], { cwd: proj });
    expect(inProj.json.locks.map((l: any) => [l.owner, l.pattern])).toEqual([['claude-a', 'x']]);
    expect((await runBin(COORD_BIN, ['list', '--active'], { cwd: srv })).json.locks).toEqual([]);
    // The CLI in /srv cannot grant /srv/proj/x in /srv's database: it is refused as another project's path.
    const cli = await runBin(COORD_BIN, ['reserve', 'proj/x'], { cwd: srv, env: { IC_OWNER: 'carol' } });
    expect(cli.exitCode).toBe(65);
    expect(cli.json.error).toMatchObject({ code: 'OUTSIDE_SCOPE', repository: proj });
  });
});
