import type { RestoreReport, ShellRequest } from './types';

// After a shell command: every file another owner holds that the command changed goes back to the holder's
// latest content, and a file it created under another owner's pattern is moved aside. Interface stub (#19).
export function restoreAfterShell(_request: ShellRequest, _env: NodeJS.ProcessEnv): RestoreReport {
  return { restored: [], displaced: [] };
}

// After the holder's own write (its edit tool or its own shell command): its new content becomes what a
// restore puts back, so the holder's own writes are never undone. Interface stub (#19).
export function recordHolderWrite(_owner: string, _paths: readonly string[], _cwd: string, _env: NodeJS.ProcessEnv): void {}
