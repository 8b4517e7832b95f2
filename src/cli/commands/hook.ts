import { Command } from 'commander';
import { IcError } from '../../core/errors';
import { HOOK_NAMES, isHookName, readsStdin, runHook } from '../../hooks/run';
import { readStdinSync, STDIN_CAP_BYTES } from '../../hooks/stdin';
import { startDeadline } from '../../store/deadline';
import { limitServerWaits } from '../../store/postgres/wait-limit';
import { hookSettings } from '../../hooks/settings';
import { withCommonOptions, type CommonOptions } from '../common';
import { failure, type Reply } from '../reply';

// `ic coord hook NAME`: the agent's wire format in and out (not ic's JSON envelope), always exit 0 or 1.
export function hookCommand(emit: (reply: Reply) => void): Command {
  return withCommonOptions(new Command('hook'))
    .description(`run an agent or git hook: ${HOOK_NAMES.join(', ')} (reads the hook payload on stdin)`)
    .argument('<name>', 'which hook')
    .action((name: string, options: CommonOptions) => {
      if (!isHookName(name)) {
        emit(failure(new IcError('USAGE', `unknown hook "${name}"; hooks are ${HOOK_NAMES.join(', ')}`, { hint: 'Try: ic coord install' })));
        return;
      }
      const env = options.db ? { ...process.env, IC_DB: options.db } : process.env;
      // git passes no payload (and its stdin may be a terminal): only agent hooks read stdin.
      const deadline = startDeadline(hookSettings(env).timeoutMs);
      limitServerWaits(deadline.leftMs); // no PostgreSQL server can hold the hook past its deadline
      const input = !readsStdin(name) ? { text: '' } : readStdinSync(STDIN_CAP_BYTES, deadline.leftMs());
      const result = runHook(name, input, env, process.cwd(), deadline);
      if (result.stdout) process.stdout.write(result.stdout);
      if (result.stderr) process.stderr.write(result.stderr);
      process.exitCode = result.exitCode;
    });
}
