import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coord, ic, makeTempRepo, type TempRepo } from '../support/cli';
import { codexPatch, fixture } from '../hooks/fixtures';

const OWNER = 'codex-019a3c1e-7b2d-7c41-9e0f-2a6b5d4c3e21';
const hook = (repo: TempRepo, input: string, env: Record<string, string> = {}) => ic(repo, ['coord', 'hook', 'codex-pre-edit'], { input, env });

describe('hook codex-pre-edit', () => {
  let repo: TempRepo;
  beforeAll(() => {
    repo = makeTempRepo('ic-hooks-codex-');
  });
  afterAll(() => repo.cleanup());

  it('reserves every path of the patch (add, update, delete, both sides of a move) for the session', async () => {
    const result = await hook(repo, fixture('codex-pre-apply-patch.json', repo.dir));
    expect(result).toMatchObject({ exitCode: 0, stdout: '' });
    const list = await coord(repo, ['list', '--active', '--owner', OWNER]);
    expect(list.json.locks.map((l: any) => l.pattern).sort()).toEqual(['src/added.ts', 'src/app.ts', 'src/moved-from.ts', 'src/moved-to.ts', 'src/old.ts']);
  });

  it('all or none: one held path denies the whole patch in the PreToolUse deny format', async () => {
    const patch = '*** Begin Patch\n*** Add File: free.ts\n+x\n*** Update File: src/app.ts\n@@\n-a\n+b\n*** End Patch\n';
    const result = await hook(repo, codexPatch(repo.dir, 'other', patch));
    expect(result.exitCode).toBe(0);
    expect(result.json.hookSpecificOutput).toMatchObject({ hookEventName: 'PreToolUse', permissionDecision: 'deny' });
    expect(result.json.hookSpecificOutput.permissionDecisionReason).toContain(OWNER);
    expect((await coord(repo, ['list', '--active', '--owner', 'codex-other'])).json.locks).toEqual([]);
  });

  it('shell commands, garbage and missing fields never block', async () => {
    expect(await hook(repo, fixture('codex-pre-bash.json', repo.dir))).toMatchObject({ exitCode: 0, stdout: '' });
    for (const input of ['', 'not json', '{}', JSON.stringify({ tool_name: 'apply_patch', tool_input: {} })]) {
      const result = await hook(repo, input);
      expect(result.exitCode).toBe(0);
      expect(result.json.systemMessage).toMatch(/^ic: edit not checked/);
    }
  });

  it("acts as $IC_OWNER when Codex was started with one, and its SessionEnd releases that owner's locks", async () => {
    const patch = '*** Begin Patch\n*** Add File: named.ts\n+x\n*** End Patch\n';
    expect(await hook(repo, codexPatch(repo.dir, 'c9', patch), { IC_OWNER: 'codex-main' })).toMatchObject({ exitCode: 0, stdout: '' });
    expect((await coord(repo, ['list', '--active', '--owner', 'codex-main'])).json.locks.map((l: any) => l.pattern)).toEqual(['named.ts']);
    const end = JSON.stringify({ session_id: 'c9', cwd: repo.dir, hook_event_name: 'SessionEnd', reason: 'other' });
    const released = await ic(repo, ['coord', 'hook', 'codex-session-end'], { input: end, env: { IC_OWNER: 'codex-main' } });
    expect(released).toMatchObject({ exitCode: 0, stdout: '' });
    expect(released.stderr).toContain('released 1 lock of codex-main');
    expect((await coord(repo, ['list', '--active', '--owner', 'codex-main'])).json.locks).toEqual([]);
  });

  it('a patch applied through the shell (apply_patch heredoc) is reserved like the tool', async () => {
    const payload = JSON.parse(fixture('codex-pre-bash.json', repo.dir));
    payload.session_id = 'c10';
    payload.tool_input.command = "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: shell.ts\n@@\n-a\n+b\n*** End Patch\nEOF\n";
    expect(await hook(repo, JSON.stringify(payload))).toMatchObject({ exitCode: 0, stdout: '' });
    expect((await coord(repo, ['list', '--active', '--owner', 'codex-c10'])).json.locks.map((l: any) => l.pattern)).toEqual(['shell.ts']);
    payload.session_id = 'c11';
    const denied = await hook(repo, JSON.stringify(payload));
    expect(denied.json.hookSpecificOutput.permissionDecision).toBe('deny');
  });
});
