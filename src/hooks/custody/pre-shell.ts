import type { EditOutcome } from '../edit';
import type { ShellRequest } from './types';

// Before a shell command: the files it will visibly write (redirections, sed -i, cp/mv targets, git's
// writing verbs, …) are reserved for its owner; one another owner holds refuses the command with the same
// outcome as an Edit (so decideEdit words the deny). Interface stub: filled in by the custody work (#19).
export function checkShellCommand(_request: ShellRequest, _env: NodeJS.ProcessEnv): EditOutcome {
  return { kind: 'outside', untrackable: [] };
}
