import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const DIR = join(__dirname, '..', 'fixtures', 'hooks');

// A recorded payload with __CWD__ replaced by `cwd` (JSON-escaped, so any path stays valid JSON).
export function fixture(name: string, cwd: string): string {
  return readFileSync(join(DIR, name), 'utf8').split('__CWD__').join(JSON.stringify(cwd).slice(1, -1));
}

export function fixtureJson(name: string, cwd: string): Record<string, any> {
  return JSON.parse(fixture(name, cwd));
}

export function claudeEdit(cwd: string, sessionId: string, filePath: string, tool = 'Edit'): string {
  const payload = fixtureJson('claude-pre-edit.json', cwd);
  payload.session_id = sessionId;
  payload.tool_name = tool;
  payload.tool_input.file_path = filePath;
  return JSON.stringify(payload);
}

export function codexPatch(cwd: string, sessionId: string, patch: string): string {
  const payload = fixtureJson('codex-pre-apply-patch.json', cwd);
  payload.session_id = sessionId;
  payload.tool_input.command = patch;
  return JSON.stringify(payload);
}

// Hostile file names: shell metacharacters, quotes, newlines, a leading dash, non-ASCII, glob characters.
export const HOSTILE_NAMES = [
  'with space.ts',
  "single'quote.ts",
  'double"quote.ts',
  '$(touch pwned).ts',
  '`touch pwned`.ts',
  'semi;touch pwned.ts',
  '-rf',
  'ünïcødé 日本.ts',
  '[id]',
  'a*b?.ts',
  '{a,b}.ts',
  '!bang.ts',
  'back\\slash.ts',
  'x'.repeat(110) + '.ts',
  `${'deep/'.repeat(40)}file.ts`,
];
