import { Command } from 'commander';
import { IcError } from '../../core/errors';
import { viewLock } from '../../core/lock';
import { verify } from '../../coord/verify';
import { commonCommand, withContext, type CommonOptions } from '../common';
import { success, type Reply } from '../reply';

export function verifyCommand(emit: (reply: Reply) => void): Command {
  return commonCommand('verify', 'exit 0 iff the lock is still active with this fencing token')
    .argument('<id>', 'lock ID')
    .argument('<token>', 'fencing token')
    .action(async (id: string, token: string, options: CommonOptions) => emit(await runVerify(id, token, options)));
}

async function runVerify(id: string, rawToken: string, options: CommonOptions): Promise<Reply> {
  if (!/^\d{1,15}$/.test(rawToken)) throw new IcError('INVALID_INPUT', `token "${rawToken}" is not a fencing token (a positive integer)`);
  return withContext(options, false, async (ctx) => {
    const result = await verify(ctx, id, Number(rawToken));
    const lock = result.lock ? viewLock(result.lock) : undefined;
    if (result.valid) return success({ valid: true, lock }, () => `valid: ${id} token ${rawToken}`);
    // An invalid fence is an answer (exit 1), like check's "not free".
    return success({ valid: false, why: result.why, lock }, () => `not valid: ${result.why.replace('_', ' ')}`, 1);
  });
}
