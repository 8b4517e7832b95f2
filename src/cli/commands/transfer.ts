import { Command } from 'commander';
import { checkTransferAuthority } from '../../core/authority';
import { validateOwner } from '../../core/owner';
import { viewLock } from '../../core/lock';
import { commandLinePattern } from '../../coord/paths';
import { validateName } from '../../core/names';
import { transfer } from '../../coord/transfer';
import { ownerOption, projectFor, resolveOwner, commonCommand, withContext, type CommonOptions } from '../common';
import { success, type Reply } from '../reply';
import { lockTable } from '../render';

interface TransferOptions extends CommonOptions {
  from: string;
  to: string;
  pattern?: string;
  force?: boolean;
}

export function transferCommand(emit: (reply: Reply) => void): Command {
  return commonCommand('transfer', "atomically hand A's active locks in the scope to B, with new fencing tokens (only A, or anyone with --force)")
    .requiredOption('--from <owner>', 'current owner')
    .requiredOption('--to <owner>', 'new owner')
    .option('--pattern <pattern>', 'only the locks on this pattern (or named lock / claim name)')
    .addOption(ownerOption())
    .option('--force', "transfer another owner's locks (the event records who did it)")
    .action(async (options: TransferOptions) => emit(await runTransfer(options)));
}

// A file lock is named by its pattern read as in `reserve` (from the current directory); a named lock or
// claim by the name as written. A name that is not a valid glob (e.g. `issue[42`) names only those.
function transferKeys(raw: string, options: CommonOptions): { file?: string; name: string } {
  const name = validateName(raw, '--pattern');
  try {
    return { file: commandLinePattern(projectFor(options), process.cwd(), raw), name };
  } catch {
    return { name };
  }
}

async function runTransfer(options: TransferOptions): Promise<Reply> {
  const from = validateOwner(options.from, '--from');
  const to = validateOwner(options.to, '--to');
  // Who does it: only --from itself, or anyone with --force (core/authority.ts).
  const by = await resolveOwner(options, process.env);
  checkTransferAuthority(by, from, Boolean(options.force)); // before the database is opened (or created)
  // --pattern matches a file pattern in canonical form, or a lock/claim name as written.
  const only = options.pattern === undefined ? undefined : transferKeys(options.pattern, options);
  return withContext(options, true, async (ctx) => {
    const locks = (await transfer(ctx, { from, to, by, force: Boolean(options.force), ...(only ? { only } : {}) })).map(viewLock);
    return success({ locks }, () => lockTable(locks));
  });
}
