import { appendFileSync, readFileSync, statSync } from 'node:fs';

// Appends one line to Claude Code's env file unless it is already there (hooks may run twice). Returns
// whether the file changed.
export function appendOnce(envFile: string, line: string): boolean {
  // Not a regular file (a FIFO would block the read, or the append until a reader came): left alone.
  const stat = statSync(envFile, { throwIfNoEntry: false });
  if (stat !== undefined && !stat.isFile()) throw new Error(`${envFile} is not a regular file`);
  const existing = stat !== undefined ? readFileSync(envFile, 'utf8') : '';
  if (existing.split('\n').includes(line)) return false;
  const separator = existing === '' || existing.endsWith('\n') ? '' : '\n';
  appendFileSync(envFile, `${separator}${line}\n`);
  return true;
}
