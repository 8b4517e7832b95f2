import { Command } from 'commander';
import { formatTime } from '../../core/time';
import { countOf } from '../../core/plural';
import { heartbeat } from '../../coord/heartbeat';
import { ownerOption, resolveOwner, commonCommand, withContext, type CommonOptions } from '../common';
import { success, type Reply } from '../reply';

export function heartbeatCommand(emit: (reply: Reply) => void): Command {
  return commonCommand('heartbeat', "renew all of the owner's locks and claims and record it as alive (cheap: call it on every tool use)")
    .addOption(ownerOption())
    .action(async (options: CommonOptions) => emit(await runHeartbeat(options)));
}

async function runHeartbeat(options: CommonOptions): Promise<Reply> {
  const owner = await resolveOwner(options, process.env);
  return withContext(options, true, async (ctx) => {
    const result = await heartbeat(ctx, owner);
    const json = { owner, renewed: result.renewed, skipped: result.skipped, last_seen: formatTime(result.last_seen) };
    return success(json, () => (result.skipped ? `${owner}: seen just now` : `${owner}: renewed ${countOf(result.renewed, 'lock')}`));
  });
}
