import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokenDatabase, coord, ic, makeTempRepo, type TempRepo } from '../support/cli';
import { claudeEdit, fixture, HOSTILE_NAMES } from '../hooks/fixtures';

const OWNER = 'claude-1f0b6a52-6d4e-4c38-9a57-0c7d2f3e9b11';
const hook = (repo: TempRepo, name: string, input: string, env: Record<string, string | undefined> = {}) =>
  ic(repo, ['coord', 'hook', name], { input, env: { IC_OWNER: 'inherited-shell-owner', ...env } });

function denyOf(stdout: string): string | undefined {
  if (stdout === '') return undefined;
  const json = JSON.parse(stdout);
  return json.hookSpecificOutput?.permissionDecision === 'deny' ? json.hookSpecificOutput.permissionDecisionReason : undefined;
}

describe('hook claude-pre-edit (recorded payloads through the real bin)', () => {
  let repo: TempRepo;
  beforeAll(() => {
    repo = makeTempRepo('ic-hooks-claude-');
  });
  afterAll(() => repo.cleanup());

  it.each(['claude-pre-edit.json', 'claude-pre-write.json', 'claude-pre-multiedit.json', 'claude-pre-notebook.json', 'claude-pre-edit-extra-fields.json'])(
    '%s reserves the file for the session, silently',
    async (name) => {
      const result = await hook(repo, 'claude-pre-edit', fixture(name, repo.dir));
      expect(result).toMatchObject({ exitCode: 0, stdout: '' });
      const list = await coord(repo, ['list', '--active', '--owner', OWNER]);
      expect(list.json.locks.length).toBeGreaterThan(0);
      expect(list.json.locks.every((lock: any) => lock.mode === 'exclusive' && lock.type === 'file')).toBe(true);
    },
  );

  it('never uses an inherited IC_OWNER', async () => {
    const list = await coord(repo, ['list', '--active', '--owner', 'inherited-shell-owner']);
    expect(list.json.locks).toEqual([]);
  });

  it.each([
    ['claude-pre-edit-no-session.json', 'session_id'],
    ['claude-pre-edit-no-path.json', 'file_path'],
    ['claude-pre-edit-no-tool.json', 'tool_name'],
    ['not-json.txt', 'not JSON'],
  ])('%s allows with a clear notice', async (name, problem) => {
    const result = await hook(repo, 'claude-pre-edit', fixture(name, repo.dir));
    expect(result.exitCode).toBe(0);
    expect(result.json.systemMessage).toContain(problem);
    expect(result.json.hookSpecificOutput).toBeUndefined();
  });

  it('empty stdin allows with a notice', async () => {
    const result = await hook(repo, 'claude-pre-edit', '');
    expect(result.exitCode).toBe(0);
    expect(result.json.systemMessage).toContain('no input');
  });

  it('a non-edit tool and a file outside the project are allowed silently', async () => {
    expect(await hook(repo, 'claude-pre-edit', fixture('claude-pre-bash.json', repo.dir))).toMatchObject({ exitCode: 0, stdout: '' });
    expect(await hook(repo, 'claude-pre-edit', claudeEdit(repo.dir, 'outsider', '/etc/hosts'))).toMatchObject({ exitCode: 0, stdout: '' });
    expect(await hook(repo, 'claude-pre-edit', claudeEdit(repo.dir, 'outsider', join(repo.dir, '..', 'elsewhere.ts')))).toMatchObject({ exitCode: 0, stdout: '' });
    expect((await coord(repo, ['list', '--active', '--owner', 'claude-outsider'])).json.locks).toEqual([]);
  });

  it('denies another session the same file, naming holder, pattern and expiry; its own session renews', async () => {
    const other = await hook(repo, 'claude-pre-edit', claudeEdit(repo.dir, 'other-session', join(repo.dir, 'src/app.ts')));
    expect(other.exitCode).toBe(0);
    const reason = denyOf(other.stdout)!;
    expect(reason).toContain(OWNER);
    expect(reason).toContain('"src/app.ts"');
    expect(reason).toMatch(/until \d{4}-\d\d-\d\dT/);
    expect(reason).toContain('coord who');
    const again = await hook(repo, 'claude-pre-edit', fixture('claude-pre-edit.json', repo.dir));
    expect(again).toMatchObject({ exitCode: 0, stdout: '' });
  });

  it('a relative path resolves against the payload cwd', async () => {
    mkdirSync(join(repo.dir, 'pkg'), { recursive: true });
    const payload = JSON.parse(claudeEdit(join(repo.dir, 'pkg'), 'rel-session', 'index.ts'));
    payload.cwd = join(repo.dir, 'pkg');
    expect((await hook(repo, 'claude-pre-edit', JSON.stringify(payload))).stdout).toBe('');
    const list = await coord(repo, ['list', '--active', '--owner', 'claude-rel-session']);
    expect(list.json.locks.map((l: any) => l.pattern)).toEqual(['pkg/index.ts']);
  });
});

describe('hook claude-pre-edit: hostile file names end to end', () => {
  let repo: TempRepo;
  beforeAll(() => {
    repo = makeTempRepo('ic-hooks-hostile-');
  });
  afterAll(() => repo.cleanup());

  it.each(HOSTILE_NAMES)('%j is reserved literally, nothing runs, the deny JSON is valid', async (name) => {
    const path = join(repo.dir, 'dir', name);
    const first = await hook(repo, 'claude-pre-edit', claudeEdit(repo.dir, 'alpha', path));
    expect(first).toMatchObject({ exitCode: 0, stdout: '' });
    const second = await hook(repo, 'claude-pre-edit', claudeEdit(repo.dir, 'beta', path));
    expect(second.exitCode).toBe(0);
    expect(denyOf(second.stdout)).toContain('claude-alpha');
    // Literal: a sibling the name would match as a glob is not blocked.
    const sibling = await hook(repo, 'claude-pre-edit', claudeEdit(repo.dir, 'beta', join(repo.dir, 'dir', `${name}.sibling`)));
    expect(sibling.stdout).toBe('');
    expect(existsSync(join(repo.dir, 'pwned'))).toBe(false);
    expect(existsSync(join(repo.dir, 'dir', 'pwned'))).toBe(false);
  });

  it('[id] does not block a file named i or d', async () => {
    await hook(repo, 'claude-pre-edit', claudeEdit(repo.dir, 'alpha', join(repo.dir, 'app/[id]/page.tsx')));
    expect((await hook(repo, 'claude-pre-edit', claudeEdit(repo.dir, 'beta', join(repo.dir, 'app/i/page.tsx')))).stdout).toBe('');
  });

  it('a 250-character file name is reserved like any other', async () => {
    const long = join(repo.dir, `${'y'.repeat(247)}.ts`);
    expect((await hook(repo, 'claude-pre-edit', claudeEdit(repo.dir, 'alpha', long))).stdout).toBe('');
    expect(denyOf((await hook(repo, 'claude-pre-edit', claudeEdit(repo.dir, 'beta', long))).stdout)).toContain('claude-alpha');
  });

  it('a name past the pattern limits (300 characters in one segment) is allowed with a notice', async () => {
    const result = await hook(repo, 'claude-pre-edit', claudeEdit(repo.dir, 'alpha', join(repo.dir, `${'y'.repeat(300)}.ts`)));
    expect(result.exitCode).toBe(0);
    expect(result.json.systemMessage).toContain('not reserved');
  });

  it('a name with a newline cannot be a pattern: allowed with a notice, valid JSON', async () => {
    const result = await hook(repo, 'claude-pre-edit', claudeEdit(repo.dir, 'alpha', join(repo.dir, 'new\nline $(touch pwned).ts')));
    expect(result.exitCode).toBe(0);
    expect(result.json.systemMessage).toContain('not reserved');
    expect(existsSync(join(repo.dir, 'pwned'))).toBe(false);
  });
});

describe('hook claude-pre-edit: database trouble', () => {
  let repo: TempRepo;
  // SQLite: a file that is not a database; PostgreSQL: a server that refuses the connection.
  let trouble: Record<string, string>;
  beforeAll(() => {
    repo = makeTempRepo('ic-hooks-fail-');
    trouble = brokenDatabase(repo);
  });
  afterAll(() => repo.cleanup());

  it('fails open with a systemMessage', async () => {
    const result = await hook(repo, 'claude-pre-edit', fixture('claude-pre-edit.json', repo.dir), trouble);
    expect(result.exitCode).toBe(0);
    expect(result.json.systemMessage).toContain('DB_UNAVAILABLE');
    expect(result.json.hookSpecificOutput).toBeUndefined();
  });

  it('denies with IC_HOOK_FAIL=closed, still exit 0', async () => {
    const result = await hook(repo, 'claude-pre-edit', fixture('claude-pre-edit.json', repo.dir), { IC_HOOK_FAIL: 'closed', ...trouble });
    expect(result.exitCode).toBe(0);
    expect(denyOf(result.stdout)).toContain('IC_HOOK_FAIL=closed');
  });
});

describe('hook claude-session-start / claude-session-end', () => {
  let repo: TempRepo;
  beforeAll(() => {
    repo = makeTempRepo('ic-hooks-session-');
  });
  afterAll(() => repo.cleanup());

  it('exports IC_OWNER to CLAUDE_ENV_FILE once, shell-quoted', async () => {
    const envFile = join(repo.dir, 'claude-env');
    writeFileSync(envFile, 'export FOO=1');
    for (let i = 0; i < 2; i++) {
      const result = await hook(repo, 'claude-session-start', fixture('claude-session-start.json', repo.dir), { CLAUDE_ENV_FILE: envFile });
      expect(result.exitCode).toBe(0);
      expect(result.json.hookSpecificOutput.additionalContext).toContain(OWNER);
    }
    expect(readFileSync(envFile, 'utf8')).toBe(`export FOO=1\nexport IC_OWNER='${OWNER}'\n`);
  });

  it('a hostile session id becomes a safe owner', async () => {
    const envFile = join(repo.dir, 'claude-env-2');
    const payload = { session_id: "x'; touch pwned; echo '$(touch pwned)", cwd: repo.dir, hook_event_name: 'SessionStart', source: 'startup' };
    await hook(repo, 'claude-session-start', JSON.stringify(payload), { CLAUDE_ENV_FILE: envFile });
    expect(readFileSync(envFile, 'utf8')).toMatch(/^export IC_OWNER='claude-[0-9a-f]{32}'\n$/);
    expect(existsSync(join(repo.dir, 'pwned'))).toBe(false);
  });

  it('missing CLAUDE_ENV_FILE, missing fields and garbage never fail', async () => {
    for (const input of [fixture('claude-session-start.json', repo.dir), '', 'nope', '{}']) {
      const result = await hook(repo, 'claude-session-start', input);
      expect(result.exitCode).toBe(0);
    }
  });

  it("session end releases the session's locks and claims, and nobody else's", async () => {
    await hook(repo, 'claude-pre-edit', fixture('claude-pre-edit.json', repo.dir));
    await coord(repo, ['claim', 'TICKET-1', '--owner', OWNER]);
    await hook(repo, 'claude-pre-edit', claudeEdit(repo.dir, 'someone-else', join(repo.dir, 'other.ts')));
    const end = await hook(repo, 'claude-session-end', fixture('claude-session-end.json', repo.dir));
    expect(end.exitCode).toBe(0);
    expect((await coord(repo, ['list', '--active', '--owner', OWNER])).json.locks).toEqual([]);
    expect((await coord(repo, ['list', '--active', '--owner', 'claude-someone-else'])).json.locks).toHaveLength(1);
    for (const input of ['', 'nope', '{}']) expect((await hook(repo, 'claude-session-end', input)).exitCode).toBe(0);
  });
});
