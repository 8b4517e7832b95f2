// Poisoned names and config (issue #21, finding 12): invisible and bidi characters in owners, and a
// repository path that TOML cannot hold raw. The real bin, in real git repositories.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { coord, ic, makeTempRepo, type TempRepo } from '../support/cli';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

// Python's tomllib is a strict TOML 1.0 parser: the config must parse, and the key must read back as the path.
function parseTomlKeys(text: string): string[] | { error: string } | undefined {
  const probe = spawnSync('python3', ['-c', 'import sys, json, tomllib; print(json.dumps(list(tomllib.loads(sys.stdin.read())["hooks"]["state"].keys())))'], { input: text, encoding: 'utf8' });
  if (probe.error || /No module named/.test(probe.stderr ?? '')) return undefined;
  if (probe.status !== 0) return { error: probe.stderr };
  return JSON.parse(probe.stdout) as string[];
}

// TOML 1.0 basic-string grammar, checked by hand: no raw control character (tab aside), escapes only
// \b \t \n \f \r \" \\ \uXXXX \UXXXXXXXX.
const BASIC_STRING = /^"(?:[^\u0000-\u0008\u000a-\u001f\u007f"\\]|\\[btnfr"\\]|\\u[0-9a-fA-F]{4}|\\U[0-9a-fA-F]{8})*"$/;

describe('names that print like another name are refused', () => {
  it.each([
    ['U+200E left-to-right mark', 'al\u200eice'],
    ['U+200F right-to-left mark', 'al\u200fice'],
    ['U+061C Arabic letter mark', 'al\u061cice'],
    ['U+00AD soft hyphen', 'al\u00adice'],
    ['U+034F combining grapheme joiner', 'al\u034fice'],
    ['U+180E Mongolian vowel separator', 'al\u180eice'],
    ['U+3164 Hangul filler', 'al\u3164ice'],
  ])('an owner containing %s is refused with 65 and nothing is stored', async (label, owner) => {
    const repo = makeTempRepo('ic-names-');
    cleanups.push(repo.cleanup);
    const result = await coord(repo, ['reserve', 'a.ts', '--owner', owner]);
    expect(result.exitCode).toBe(65);
    expect(result.json.error.message).toContain(label.split(' ')[0]);
    const lockName = await coord(repo, ['lock', `tests${owner.slice(2, 3)}`, '--owner', 'alice']);
    expect(lockName.exitCode).toBe(65);
    const reason = await coord(repo, ['reserve', 'b.ts', '--owner', 'alice', '--reason', owner]);
    expect(reason.exitCode).toBe(65);
    expect((await coord(repo, ['list'])).json.locks).toEqual([]);
  });
});

describe('Codex trust entries are valid TOML whatever the repository path', () => {
  it('a repository path with DEL, C0/C1 controls, quotes and backslashes gives a config.toml that parses back to that path, idempotently', async () => {
    const base = realpathSync(mkdtempSync(join(tmpdir(), 'ic-toml-')));
    cleanups.push(() => rmSync(base, { recursive: true, force: true }));
    const dir = join(base, 'repo \u007f del\u0001\u001b[0m "q" \\b\\ \u0085 tab\there é');
    mkdirSync(dir);
    execFileSync('git', ['init', '-q', '-b', 'main', dir]);
    const repo: TempRepo = { dir, db: join(dir, '.git', 'ic', 'ic.db'), cleanup: () => undefined };
    const codexHome = join(base, 'codex-home');
    mkdirSync(codexHome);
    const env = { CODEX_HOME: codexHome };
    const installed = await ic(repo, ['coord', 'install', '--codex', '--trust'], { env });
    expect(installed.exitCode, installed.stdout + installed.stderr).toBe(0);
    const config = readFileSync(join(codexHome, 'config.toml'), 'utf8');
    const headers = config.split('\n').filter((line) => line.startsWith('[hooks.state.'));
    expect(headers.length).toBeGreaterThan(0);
    for (const header of headers) {
      expect(header).toMatch(/^\[hooks\.state\.(".*")\]$/);
      expect(BASIC_STRING.test(/^\[hooks\.state\.(".*")\]$/.exec(header)![1]!)).toBe(true);
    }
    expect(config).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    const keys = parseTomlKeys(config);
    if (keys !== undefined) {
      expect(keys).not.toHaveProperty('error');
      for (const key of keys as string[]) expect(key.startsWith(join(dir, '.codex', 'hooks.json:'))).toBe(true);
    }
    // Found again on the next install: nothing appended, so no duplicate table.
    expect((await ic(repo, ['coord', 'install', '--codex', '--trust'], { env })).json.changed).toEqual([]);
  });
});
