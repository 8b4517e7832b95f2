import { Command } from 'commander';
import { IcError } from '../../core/errors';
import { HOOK_NAMES, isHookName } from '../../hooks/run';
import { commonCommand, type CommonOptions } from '../common';
import { runHookCall } from '../hook-call';
import { failure, type Reply } from '../reply';

// `ic coord hook NAME`: the agent's wire format in and out (not ic's JSON envelope), always exit 0 or 1.
export function hookCommand(emit: (reply: Reply) => void): Command {
  return commonCommand('hook', `run an agent or git hook: ${HOOK_NAMES.join(', ')} (reads the hook payload on stdin)`)
    .argument('<name>', 'which hook')
    .action(async (name: string, options: CommonOptions) => {
      if (!isHookName(name)) return emit(failure(new IcError('USAGE', `unknown hook "${name}"; hooks are ${HOOK_NAMES.join(', ')}`, { hint: 'Try: ic coord install' })));
      await runHookCall(name, undefined, options.db ? { ...process.env, IC_DB: options.db } : process.env);
    });
}
