import { isBareHookCall, runHookCall } from './hook-call';
import { HOOKS_OF_THE_FULL_CLI } from '../hooks/run';
import type { HookInput } from '../hooks/hook-types';
import { reportTimingsAtExit } from './timing-report';

// Entry of dist/hook.cjs, the bundle bin/ic loads for a bare `coord hook NAME`; anything else is
// handed to the full CLI.
export async function run(argv: string[]): Promise<void> {
  enterBundle();
  if (isBareHookCall(argv) && !HOOKS_OF_THE_FULL_CLI.includes(argv[2]!)) {
    await runHookCall(argv[2]!);
    exitAfterHook();
  }
  await (require('./ic.cjs') as { run: (argv: string[]) => Promise<void> }).run(argv);
}

// Everything is written (synchronously) and nothing is left to do: exit without Node's environment teardown,
// which cost a hook on a PostgreSQL server ~4.5 ms and one on SQLite ~1 ms, measured. A SQLite connection is
// left open, so its commits stay in the WAL for a later checkpoint (SQLite's at 1,000 pages, or a command's
// close): closing would checkpoint and delete the WAL, four fsyncs per hook (docs/performance.md). 'exit'
// listeners still run (the loader's code cache). Only where a hook is the whole process: the build's
// warm-up runs several hooks in one (runWithInput).
export function exitAfterHook(): never {
  process.exit();
}

// The fast path's bundle (dist/fast.cjs) read stdin and could not decide: the hook runs on that input.
export async function runWithInput(argv: string[], input: HookInput): Promise<void> {
  enterBundle();
  await runHookCall(argv[2]!, input);
}

// Whichever way this bundle is entered: no inspector on SIGUSR1 (bin/ sets the same listener first); IC_TIMING.
function enterBundle(): void {
  if (process.listenerCount('SIGUSR1') === 0) process.on('SIGUSR1', () => {});
  if (process.env.IC_TIMING === '1') reportTimingsAtExit();
}
