import { isBareHookCall, runHookCall } from './hook-call';
import { HOOKS_OF_THE_FULL_CLI, type HookInput } from '../hooks/run';
import { reportTimingsAtExit } from './timing-report';

// Entry of dist/hook.cjs, the bundle bin/ic loads for a bare `coord hook NAME`; anything else is
// handed to the full CLI.
export function run(argv: string[]): void {
  ignoreInspectorSignal();
  if (process.env.IC_TIMING === '1') reportTimingsAtExit();
  if (isBareHookCall(argv) && !HOOKS_OF_THE_FULL_CLI.includes(argv[2]!)) return runHookCall(argv[2]!);
  (require('./ic.cjs') as { run: (argv: string[]) => void }).run(argv);
}

// The fast path's bundle (dist/fast.cjs) read stdin and could not decide: the hook runs on that input.
export function runWithInput(argv: string[], input: HookInput): void {
  ignoreInspectorSignal();
  if (process.env.IC_TIMING === '1') reportTimingsAtExit();
  runHookCall(argv[2]!, input);
}

// No inspector on SIGUSR1 whichever way this bundle is entered (bin/ sets the same listener first).
export function ignoreInspectorSignal(): void {
  if (process.listenerCount('SIGUSR1') === 0) process.on('SIGUSR1', () => {});
}
