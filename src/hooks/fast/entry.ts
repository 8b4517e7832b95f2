import { writeSync } from 'node:fs';
import { join } from 'node:path';
import { startDeadline } from '../../store/deadline';
import { hookCwd, hookSettings } from '../settings';
import type { HookInput } from '../hook-types';
import { readStdinSync, STDIN_CAP_BYTES } from '../stdin';
import { fastShellHook } from './shell';

export { fastShellHook }; // for the build's code-cache warm-up (scripts/warm-caches.cjs)

// Entry of dist/fast.cjs, the bundle bin/ic's loader loads for a shell command's before and after hooks: it
// answers without SQLite when it can (./shell.ts), else hands the input it read to the hook bundle.
export function run(argv: string[]): void {
  if (process.listenerCount('SIGUSR1') === 0) process.on('SIGUSR1', () => {}); // no inspector on a stray signal
  const name = argv[2]!;
  const deadline = startDeadline(hookSettings(process.env).timeoutMs);
  const input = readStdinSync(STDIN_CAP_BYTES, deadline.leftMs());
  const answer = input.truncated || input.timedOut ? undefined : fastShellHook(name, input.text, process.env, hookCwd(process.env));
  if (answer === undefined) {
    (globalThis as Record<symbol, unknown>)[Symbol.for('ic.code-cache.partial-run')] = join(__dirname, 'fast.cjs'); // no code cache from this run (bin/ic's loader)
    const hook = hookBundle();
    return void hook.runWithInput(argv, input).then(() => hook.exitAfterHook()); // as dist/hook.cjs's own entry does after a hook (src/cli/hook-main.ts)
  }
  if (answer !== '') writeSync(1, answer);
  // Everything is written (synchronously) and nothing is open: exit without Node's environment teardown,
  // which costs a short-lived process a few milliseconds more than the exit itself ('exit' listeners still run).
  process.exit(0);
}

// dist/hook.cjs through the loader's code cache (bin/ic, reached as bin/load.js): a plain require would compile it afresh.
function hookBundle(): { runWithInput: (argv: string[], input: HookInput) => Promise<void>; exitAfterHook: () => never } {
  const bundle = join(__dirname, 'hook.cjs');
  try {
    return (require(join(__dirname, '..', 'bin', 'load.js')) as { loadBundle: (bundle: string) => ReturnType<typeof hookBundle> }).loadBundle(bundle);
  } catch {
    return require(bundle) as ReturnType<typeof hookBundle>;
  }
}
