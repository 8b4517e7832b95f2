import { execa } from 'execa';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokenDatabase, cleanEnv, coord, IC_BIN, ic, makeTempRepo, type TempRepo } from '../support/cli';
import { sqliteOnly } from '../support/engine';
import { claudeEdit } from '../hooks/fixtures';

describe('ic coord statusline', () => {
  let repo: TempRepo;
  beforeAll(() => {
    repo = makeTempRepo('ic-statusline-');
  });
  afterAll(() => repo.cleanup());

  // A repository without a database file is idle on SQLite; a server database without ic's schema reads as
  // unknown ("ic: ?"), as a wrong URL does: `ic init --db URL` creates the schema.
  sqliteOnly.it('is short, plain text even when piped, and idle without a database', async () => {
    const result = await ic(repo, ['coord', 'statusline']);
    expect(result).toMatchObject({ exitCode: 0, stdout: 'ic: idle' });
  });

  it("counts agents, files held (yours) and who is waiting, from Claude's statusLine JSON", async () => {
    await coord(repo, ['reserve', 'a.ts', 'b.ts', '--owner', 'claude-me']);
    await coord(repo, ['reserve', 'c.ts', '--owner', 'alice']);
    await ic(repo, ['coord', 'hook', 'claude-pre-edit'], { input: claudeEdit(repo.dir, 'bob', join(repo.dir, 'c.ts')) });
    const input = JSON.stringify({ session_id: 'me', hook_event_name: 'Status', cwd: repo.dir, workspace: { current_dir: repo.dir, project_dir: repo.dir }, model: { id: 'x' } });
    const result = await ic(repo, ['coord', 'statusline'], { input, cwd: '/' });
    expect(result).toMatchObject({ exitCode: 0, stdout: 'ic: 2 agents · 3 files held (2 yours) · 1 agent refused in 5m' });
    const json = await ic(repo, ['coord', 'statusline', '--json'], { input });
    expect(json.json).toMatchObject({ ok: true, agents: 2, files: 3, globs: 0, waiting: 1, mine: 2 });
  });

  it('counts files (literal paths) and globs apart: a glob may cover many files', async () => {
    const other = makeTempRepo('ic-statusline-globs-');
    try {
      await coord(other, ['reserve', 'a.ts', 'src/**', 'lib/*.ts', '--owner', 'alice']);
      const result = await ic(other, ['coord', 'statusline']);
      expect(result.stdout).toBe('ic: 1 agent · 1 file + 2 globs held');
      await coord(other, ['release', '--all', '--owner', 'alice']);
      await coord(other, ['reserve', 'src/**', '--owner', 'alice']);
      expect((await ic(other, ['coord', 'statusline'])).stdout).toBe('ic: 1 agent · 1 glob held');
    } finally {
      other.cleanup();
    }
  });

  // Claude Code (Node) gives its statusLine command a socket: one its writer holds open costs the line its
  // 200 ms wait for input (src/cli/commands/statusline.ts), not a hang; the line is then the repository's own.
  it('answers when its stdin is a socket whose writer never closes it', async () => {
    await coord(repo, ['reserve', 'held-open.ts', '--owner', 'alice']);
    const child = execa(IC_BIN, ['coord', 'statusline'], { cwd: repo.dir, env: cleanEnv({}), extendEnv: false, reject: false, stdin: 'pipe', timeout: 60_000 });
    child.stdin!.write('{"session_id": "me", "cwd": ');
    const result = await child;
    child.stdin!.destroy();
    expect(result.exitCode).toBe(0);
    expect(String(result.stdout)).toMatch(/^ic: \d+ agents? · \d+ files held/);
  });

  it('never fails loudly', async () => {
    const broken = makeTempRepo('ic-statusline-broken-');
    try {
      const result = await ic(broken, ['coord', 'statusline'], { input: 'garbage', env: brokenDatabase(broken) });
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toBe('ic: ?');
    } finally {
      broken.cleanup();
    }
  });
});
