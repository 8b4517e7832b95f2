import { writeSync } from 'node:fs';
import { isHookName, readsStdin, runHook } from '../hooks/run';
import type { HookInput } from '../hooks/hook-types';
import { readStdinSync, STDIN_CAP_BYTES } from '../hooks/stdin';
import { startDeadline } from '../store/deadline';
import { hookCwd, hookSettings } from '../hooks/settings';
import { shareConnections } from '../store/sqlite-connection';
import { limitServerWaits } from '../store/postgres/wait-limit';

// `coord hook NAME` with nothing else runs on every agent edit: it gets its own small bundle
// (dist/hook.cjs) and skips commander altogether. bin/ic's loader makes the same test on argv.
export function isBareHookCall(argv: string[]): boolean {
  return argv.length === 3 && (argv[0] === 'coordination' || argv[0] === 'coord') && argv[1] === 'hook' && isHookName(argv[2]!);
}

// Runs one hook on the descriptors directly and sets the exit code (0, or 1 for a refused commit). The
// environment is copied once: each read of process.env, and each copy of it, asks the C library again.
// `input`: stdin as the fast path's bundle already read it (src/hooks/fast/entry.ts). git passes no
// payload (and its stdin may be a terminal): only agent hooks read stdin.
export async function runHookCall(name: string, given?: HookInput, env: NodeJS.ProcessEnv = { ...process.env }): Promise<void> {
  if (!isHookName(name)) throw new Error(`not a hook: ${name}`);
  const deadline = startDeadline(hookSettings(env).timeoutMs); // the hook's one deadline, counted from the process start
  shareConnections(); // one connection per database for the whole hook (src/store/sqlite-connection.ts)
  limitServerWaits(deadline.leftMs); // no PostgreSQL server can hold the hook past its deadline
  const input = given ?? (!readsStdin(name) ? { text: '' } : readStdinSync(STDIN_CAP_BYTES, deadline.leftMs()));
  const result = await runHook(name, input, env, hookCwd(env), deadline);
  writeQuietly(1, result.stdout);
  writeQuietly(2, result.stderr);
  process.exitCode = result.exitCode;
}

// Straight to the descriptor: process.stdout would load Node's net/tty machinery for one write.
// A reader that went away (EPIPE) is not an error worth a stack trace.
function writeQuietly(fd: number, text: string): void {
  if (!text) return;
  const bytes = Buffer.from(text);
  try {
    for (let offset = 0; offset < bytes.length;) offset += writeSync(fd, bytes, offset);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPIPE') throw error;
  }
}
