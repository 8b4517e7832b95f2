// What a hook gets and gives back, shared by the dispatcher (run.ts), the client adapters and the use cases,
// apart from all of them so that none imports another for a type.

export interface HookInput {
  text: string;
  truncated?: boolean;
  /** stdin was still open when the hook's deadline came (a writer that holds the pipe open): `text` is what arrived, maybe incomplete. */
  timedOut?: boolean;
}

export interface HookResult {
  stdout: string;
  stderr: string;
  /** 0, or 1 for a refused commit: never 2, which Claude Code reads as "block". */
  exitCode: 0 | 1;
}

export const QUIET: HookResult = { stdout: '', stderr: '', exitCode: 0 };
