import { appendFileSync, existsSync, readFileSync } from 'node:fs';

// Appends one line to Claude Code's env file unless it is already there (hooks may run twice). Returns
// whether the file changed.
export function appendOnce(envFile: string, line: string): boolean {
  const existing = existsSync(envFile) ? readFileSync(envFile, 'utf8') : '';
  if (existing.split('\n').includes(line)) return false;
  const separator = existing === '' || existing.endsWith('\n') ? '' : '\n';
  appendFileSync(envFile, `${separator}${line}\n`);
  return true;
}
