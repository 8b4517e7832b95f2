import type { ShellRequest } from './types';

// Before a shell command: remember the content of every file another owner holds (as git blobs), so the
// after-command hook can put back what the command changed anyway. Interface stub (#19).
export function snapshotBeforeShell(_request: ShellRequest, _env: NodeJS.ProcessEnv): void {}
