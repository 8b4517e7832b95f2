import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { createContext } from '../coord/context';
import { release } from '../coord/release';

// A shell word that is exactly `value`: single quotes, with each ' written as '\''.
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

export function envFileLine(owner: string): string {
  return `export IC_OWNER=${shellQuote(owner)}`;
}

// Adds `export IC_OWNER=…` to Claude Code's env file once: Bash commands of the session (git commit,
// coord lock) then act as the same owner as its edits. Returns whether the file changed.
export function exportOwner(envFile: string, owner: string): boolean {
  const line = envFileLine(owner);
  const existing = existsSync(envFile) ? readFileSync(envFile, 'utf8') : '';
  if (existing.split('\n').includes(line)) return false;
  const separator = existing === '' || existing.endsWith('\n') ? '' : '\n';
  appendFileSync(envFile, `${separator}${line}\n`);
  return true;
}

// Releases every lock and claim the session holds in the project (SessionEnd; never on Stop, which fires
// every turn). A project without a database has nothing to release, and none is created.
export function releaseSession(cwd: string, owner: string, env: NodeJS.ProcessEnv): number {
  const ctx = createContext({ cwd, env, write: false });
  try {
    const result = release(ctx, { ids: [], owner, all: true, force: false, reason: 'session ended', releaseReason: 'session_end' });
    return result.released.length;
  } finally {
    ctx.db.close();
  }
}
