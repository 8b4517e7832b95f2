import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { COORD_BIN, cleanEnv, coord, makeTempRepo, type TempRepo } from '../support/cli';

let repo: TempRepo;
let db: string;
beforeEach(() => {
  repo = makeTempRepo();
  db = join(repo.dir, 'names.db');
});
afterEach(() => repo.cleanup());

const as = (owner: string) => ({ env: { IC_OWNER: owner, IC_DB: db } });
const run = (args: string[], owner = 'alice') => coord(repo, args, as(owner));

// bash passes the bytes as written ($'\xff' is one byte 0xFF), which execa's strings cannot.
async function bashCoord(script: string) {
  const result = await execa('bash', ['--noprofile', '--norc', '-c', script], { cwd: repo.dir, env: cleanEnv({ IC_DB: db, COORD: COORD_BIN }), extendEnv: false, reject: false });
  return { exitCode: result.exitCode, json: JSON.parse(String(result.stdout)) };
}

describe('arguments are valid UTF-8', () => {
  it('refuses invalid bytes that Node would turn into U+FFFD, so x\\xff and x\\xfe are not one owner', async () => {
    for (const bytes of ['\\xff', '\\xfe']) {
      const result = await bashCoord(`"$COORD" reserve a.ts --owner $'x${bytes}'`);
      expect(result.exitCode).toBe(65);
      expect(result.json.error.message).toContain('not valid UTF-8');
    }
    const pattern = await bashCoord(`"$COORD" reserve $'src/\\xc3(' --owner alice`);
    expect(pattern.exitCode).toBe(65);
    expect(existsSync(db)).toBe(false);
  });

  it('refuses U+FFFD in IC_OWNER, where Node has already replaced invalid bytes', async () => {
    const result = await bashCoord(`IC_OWNER=$'x\\xff' "$COORD" reserve a.ts`);
    expect(result.exitCode).toBe(65);
    expect(result.json.error.message).toContain('U+FFFD');
  });

  it('accepts any UTF-8 text, a real U+FFFD included', async () => {
    expect((await bashCoord(`"$COORD" reserve $'caf\\xc3\\xa9.ts' --owner alice`)).exitCode).toBe(0);
    expect((await run(['lock', 'tests\ufffd'])).exitCode).toBe(0);
  });
});

describe('names refuse control, bidi and zero-width characters', () => {
  it.each([
    ['a zero-width owner', ['reserve', 'a.ts', '--owner', 'al\u200bice'], 'U+200B'],
    ['a C1 control in a pattern', ['reserve', '\u009b2J'], 'U+009B'],
    ['NEL in a pattern', ['reserve', 'a\u0085.ts'], 'U+0085'],
    ['a bidi override in a lock name', ['lock', 'tests\u202e'], 'U+202E'],
    ['a line separator in a claim', ['claim', 'issue\u202842'], 'U+2028'],
    ['a BOM in a consumer', ['events', '--consumer', '\ufeffdash'], 'U+FEFF'],
    ['an escape in a reason', ['reserve', 'a.ts', '--reason', 'x\u001b[2J'], 'U+001B'],
    ['an isolate in a transfer target', ['transfer', '--from', 'alice', '--to', 'b\u2066ob'], 'U+2066'],
  ])('%s is 65 and nothing is stored', async (_label, args, code) => {
    const result = await run(args);
    expect(result.exitCode).toBe(65);
    expect(result.json.error.code).toBe('INVALID_INPUT');
    expect(result.json.error.message).toContain(code);
    expect(existsSync(db)).toBe(false);
  });

  it('passes a command after -- on as given: a script may hold newlines', async () => {
    const result = await run(['lock', 'tests', '--', 'sh', '-c', 'printf "%s\\n" one\necho two']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe('one\ntwo');
  });
});

describe('tables on a terminal', () => {
  it('never print a control character stored by an older ic raw', async () => {
    expect((await run(['reserve', 'a.ts'])).exitCode).toBe(0);
    const raw = new Database(db);
    raw.prepare('UPDATE locks SET owner = ?, pattern = ?').run('al\u200bice\u009b2J', 'a\u202e.ts\u001b[31m');
    raw.close();
    // script(1) gives ic a terminal, so it prints its human table.
    const result = await execa('script', ['-qec', `"${COORD_BIN}" list`, '/dev/null'], { cwd: repo.dir, env: cleanEnv({ IC_DB: db }), extendEnv: false, reject: false });
    const out = String(result.stdout);
    expect(out).toContain('al\\u{200B}ice\\u{9B}2J');
    expect(out).toContain('a\\u{202E}.ts\\u{1B}[31m');
    expect(out).not.toMatch(/[\u0000-\u0008\u000b-\u000c\u000e-\u001f\u007f-\u009f\u200b-\u200d\u2028-\u202e\u2060\u2066-\u2069\ufeff]/);
  });
});
