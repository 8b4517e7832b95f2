import { Command } from 'commander';
import { IcError } from '../../core/errors';
import { parseTtl } from '../../core/time';
import { viewLock } from '../../core/lock';
import { renew } from '../../coord/renew';
import { ownerOption, resolveOwner, commonCommand, withContext, type CommonOptions } from '../common';
import { failure, success, type Reply } from '../reply';
import { lockTable } from '../render';

export function renewCommand(emit: (reply: Reply) => void): Command {
  return commonCommand('renew', "extend the owner's active locks (all of them in the scope when no ID is given)")
    .argument('[ids...]', 'lock IDs')
    .addOption(ownerOption())
    .option('--ttl <duration>', 'new time to live from now (default: the TTL each lock was taken with)')
    .action(async (ids: string[], options: CommonOptions & { ttl?: string }) => emit(await runRenew(ids, options)));
}

async function runRenew(ids: string[], options: CommonOptions & { ttl?: string }): Promise<Reply> {
  const owner = await resolveOwner(options, process.env);
  const ttlMs = options.ttl !== undefined ? parseTtl(options.ttl) : undefined;
  return withContext(options, true, async (ctx) => {
    const result = await renew(ctx, { ids, owner, ttlMs });
    const locks = result.locks.map(viewLock);
    const json = { locks, not_renewed: result.not_renewed };
    if (ids.length > 0 && locks.length === 0) {
      const code = result.not_renewed.some((n) => n.why === 'not_owner') ? 'NOT_OWNER' : 'NOT_FOUND';
      return failure(new IcError(code, `nothing renewed: ${result.not_renewed.map((n) => `${n.id} ${n.why.replace('_', ' ')}`).join(', ')}`), json);
    }
    return success(json, () => lockTable(locks));
  });
}
