import { Command, Option } from 'commander';
import { parseNonNegativeDuration } from '../../core/time';
import { LOCK_TYPES, viewLock, type LockType } from '../../core/lock';
import { list, lockDelayBlockers } from '../../coord/list';
import { commonCommand, withContext, type CommonOptions } from '../common';
import { success, type Reply } from '../reply';
import { lockTable } from '../render';

interface ListOptions extends CommonOptions {
  active?: boolean;
  type?: LockType;
  expiring?: string;
  allScopes?: boolean;
  wide?: boolean;
}

export function listCommand(emit: (reply: Reply) => void): Command {
  return commonCommand('list', 'list locks in the scope, oldest first')
    .option('--active', 'only locks that bind now: held ones, and lapsed ones still in their lock-delay (state delay)')
    .option('--owner <name>', 'only this owner')
    .addOption(new Option('--type <type>', 'only this type (lock: the same as named, the locks of `coord lock`)').choices([...LOCK_TYPES, 'lock']))
    .option('--expiring <duration>', 'only active locks expiring within this long')
    .option('--all-scopes', 'every scope in the database')
    .option('--wide', 'every column: token, type, mode, full owner, scope')
    .action(async (options: ListOptions) => emit(await runList(options)));
}

async function runList(listOptions: ListOptions): Promise<Reply> {
  const options = { ...listOptions, type: (listOptions.type as string) === 'lock' ? ('named' as const) : listOptions.type };
  const expiringMs = options.expiring !== undefined ? parseNonNegativeDuration(options.expiring, '--expiring') : undefined;
  return withContext(options, false, async (ctx) => {
    const allScopes = Boolean(options.allScopes);
    const locks = (await list(ctx, { active: Boolean(options.active), owner: options.owner, type: options.type, expiringMs, allScopes })).map(viewLock);
    const tableOptions = { wide: Boolean(options.wide), lockDelayMs: ctx.lockDelayMs, now: await ctx.db.now(ctx.clock) }; // the server's clock on PostgreSQL: a lock's state is never judged by a skewed client
    if (!options.active || expiringMs !== undefined) return success({ locks }, () => lockTable(locks, tableOptions));
    // `locks` stays what it was (active ones only); blockers in their lock-delay come beside it, when there are any.
    const delayed = (await lockDelayBlockers(ctx, allScopes, { owner: options.owner, type: options.type })).map(viewLock);
    return success({ locks, ...(delayed.length > 0 ? { lock_delay: delayed } : {}) }, () => lockTable([...locks, ...delayed], tableOptions));
  });
}
