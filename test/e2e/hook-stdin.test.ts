import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { coord, ic, makeTempRepo, type TempRepo } from '../support/cli';

// A hook's payload is read from stdin into one buffer that grows as it fills (src/hooks/stdin.ts): a
// payload of many reads (a Write of a large file) arrives whole, through a real pipe.

describe('hook stdin', () => {
  let repo: TempRepo;
  beforeEach(() => {
    repo = makeTempRepo('ic-stdin-');
  });
  afterEach(() => repo.cleanup());

  it('a payload larger than the first buffer (a 1 MB Write) is read whole and acted on', async () => {
    const content = 'x'.repeat(1_000_000) + 'END';
    const input = JSON.stringify({ session_id: 'big', cwd: repo.dir, hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: `${repo.dir}/big.txt`, content }, tool_use_id: 't' });
    const result = await ic(repo, ['coord', 'hook', 'claude-pre-edit'], { input });
    expect(result).toMatchObject({ exitCode: 0, stdout: '' });
    const held = (await coord(repo, ['list', '--active', '--owner', 'claude-big'])).json.locks.map((lock: { pattern: string }) => lock.pattern);
    expect(held).toEqual(['big.txt']);
  });

  it('a payload cut short is not taken for a whole one', async () => {
    const input = JSON.stringify({ session_id: 'cut', cwd: repo.dir, hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: `${repo.dir}/a.txt`, content: 'y'.repeat(200_000) } });
    const result = await ic(repo, ['coord', 'hook', 'claude-pre-edit'], { input: input.slice(0, 150_000) });
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(result.stdout).systemMessage).toMatch(/edit not checked: the hook input is not JSON/);
  });
});
