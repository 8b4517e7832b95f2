import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { ic, type TempRepo } from './cli';

// Custody tests' shared steps: a file written into the work tree, a Claude hook payload of one session, and
// an edit as Claude's Write makes it through the real hooks.

export function write(repo: TempRepo, path: string, text: string): void {
  mkdirSync(join(repo.dir, path, '..'), { recursive: true });
  writeFileSync(join(repo.dir, path), text);
}

export const payload = (repo: TempRepo, session: string, fields: Record<string, unknown>) => JSON.stringify({ session_id: session, transcript_path: '/dev/null', cwd: repo.dir, ...fields });

// Session `session` edits `path` as Claude's Write does: the pre-edit hook reserves it, the file is written,
// the post-tool hook records the holder's new content.
export async function claudeWrite(repo: TempRepo, session: string, path: string, text: string): Promise<void> {
  const toolInput = { file_path: join(repo.dir, path), content: text };
  const pre = await ic(repo, ['coord', 'hook', 'claude-pre-edit'], {
    input: payload(repo, session, { hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: toolInput, tool_use_id: `w-${path}` }),
  });
  expect(pre.stdout).toBe('');
  write(repo, path, text);
  const post = await ic(repo, ['coord', 'hook', 'claude-post-tool'], {
    input: payload(repo, session, { hook_event_name: 'PostToolUse', tool_name: 'Write', tool_input: toolInput, tool_use_id: `w-${path}`, tool_response: {} }),
  });
  expect(post).toMatchObject({ exitCode: 0, stdout: '' });
}
