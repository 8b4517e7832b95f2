import { Command, Option } from 'commander';
import { parseNonNegativeDuration } from '../../core/duration';
import { LOCK_TYPES, viewLock, type LockType } from '../../core/lock';
import { list } from '../../coord/list';
import { withCommonOptions, withContext, type CommonOptions } from '../common';
import { success, type Reply } from '../reply';
import { lockTable } from '../render';

interface ListOptions extends CommonOptions {
  active?: boolean;
  type?: LockType;
  expiring?: string;
  allScopes?: boolean;
}

export function listCommand(emit: (reply: Reply) => void): Command {
  return withCommonOptions(new Command('list'))
    .description('list locks in the scope, oldest first')
    .option('--active', 'only locks that are held now')
    .option('--owner <name>', 'only this owner')
    .addOption(new Option('--type <type>', 'only this type').choices(LOCK_TYPES))
    .option('--expiring <duration>', 'only active locks expiring within this long')
    .option('--all-scopes', 'every scope in the database')
    .action((options: ListOptions) => emit(runList(options)));
}

function runList(options: ListOptions): Reply {
  const expiringMs = options.expiring !== undefined ? parseNonNegativeDuration(options.expiring, '--expiring') : undefined;
  return withContext(options, false, (ctx) => {
    const locks = list(ctx, { active: Boolean(options.active), owner: options.owner, type: options.type, expiringMs, allScopes: Boolean(options.allScopes) }).map(viewLock);
    return success({ locks }, () => lockTable(locks));
  });
}
