import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

// What sends a shell hook the long way for custody beyond the command's own work tree (issue #34, items 3
// and 5), decided at the cost of a regular expression and a stat or two, without the shell reader.

// `<db>-late.json`: a watch on a job a command left running, or a notice for a session, is pending.
export function lateFile(dbPath: string): string {
  return `${dbPath}-late.json`;
}

export function lateWorkPending(dbPath: string): boolean {
  return existsSync(lateFile(dbPath));
}

// The command may start a job that outlives it: `&` as an operator (not `&&`, `&>`, `>&`, `|&`), nohup,
// setsid, disown. Errs towards yes (the full hook reads the command properly).
export function mayLeaveJob(command: string): boolean {
  return /(^|[^&>|])&(?![&>])|\b(nohup|setsid|disown)\b/.test(command);
}

// The command may reach another work tree: a `cd`/`pushd`, `git -C`, an absolute path or one that climbs
// out (`../`). Errs towards yes.
export function mayLeaveWorkTree(command: string): boolean {
  return /(^|[\s;&|(])(cd|pushd)(\s|$)|\s-C\s?|(^|[\s='"<>:])(\/(?!dev\/)|\.\.\/|~\/)/.test(command);
}

// The repository has linked worktrees (`git worktree add`): a command may touch files held in another of
// them, which share this database under another scope.
export function hasLinkedWorktrees(commonDir: string): boolean {
  try {
    return readdirSync(join(commonDir, 'worktrees')).length > 0;
  } catch {
    return false;
  }
}

// Claude's PostToolUse says the command was moved to (or started in) the background, or left a process
// group running: its writes may land after this hook.
export function clientBackgrounded(response: unknown): { background: boolean; pgid?: number } {
  if (response === null || typeof response !== 'object' || Array.isArray(response)) return { background: false };
  const fields = response as Record<string, unknown>;
  const pgid = typeof fields.leftRunningPgid === 'number' ? fields.leftRunningPgid : undefined;
  const id = fields.backgroundTaskId ?? fields.background_task_id;
  const background = (typeof id === 'string' && id !== '') || typeof id === 'number' || pgid !== undefined || fields.backgroundedByUser === true;
  return { background, ...(pgid !== undefined ? { pgid } : {}) };
}
