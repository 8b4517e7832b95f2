import { Command } from 'commander';
import { viewLock, type LockView } from '../../core/lock';
import { formatTime } from '../../core/time';
import { who } from '../../coord/who';
import { commonCommand, withContext, type CommonOptions } from '../common';
import { lockDelayBlockers } from '../../coord/list';
import { success, type Reply } from '../reply';
import { joinLines, lockTable, relativeTime } from '../render';

interface WhoOptions extends CommonOptions {
  allScopes?: boolean;
  wide?: boolean;
}

export function whoCommand(emit: (reply: Reply) => void): Command {
  return commonCommand('who', 'who holds what, most recently active owner first (lapsed locks still in their lock-delay last)')
    .option('--all-scopes', 'every scope in the database')
    .option('--wide', 'every column: token, type, mode, full owner, scope')
    .action(async (options: WhoOptions) => emit(await runWho(options)));
}

async function runWho(options: WhoOptions): Promise<Reply> {
  return withContext(options, false, async (ctx) => {
    const allScopes = Boolean(options.allScopes);
    const owners = (await who(ctx, allScopes)).map((entry) => ({
      owner: entry.owner,
      last_active: formatTime(entry.last_active),
      locks: entry.locks.map(viewLock),
      claims: entry.claims.map(viewLock),
      stalled_claims: entry.stalled_claims,
      handoff_requests: entry.handoff_requests.map((request) => ({ ...request, at: formatTime(request.at) })),
    }));
    // Beside `owners`, not in it: a lapsed lock is held by nobody, yet it still refuses others for a while.
    const delayed = (await lockDelayBlockers(ctx, allScopes)).map(viewLock);
    const rows: LockView[] = [...owners.flatMap((o) => [...o.locks, ...o.claims]), ...delayed];
    const notes = owners.flatMap((o) => [
      ...o.stalled_claims.map((item) => `${o.owner}'s claim ${item} is stalled (no activity for a while): coord claim ${item} --take`),
      ...o.handoff_requests.map((r) => `${r.by} asks ${o.owner} for ${r.item}`),
    ]);
    const now = await ctx.db.now(ctx.clock); // the server's clock on PostgreSQL; read now, while the connection is open
    const tableOptions = { wide: Boolean(options.wide), lockDelayMs: ctx.lockDelayMs, now };
    // One group per owner, most recently active first, as the command says; lapsed locks in their lock-delay last.
    const groups = [
      ...owners.map((o) => [`${o.owner} (last active ${relativeTime(o.last_active, now)})`, lockTable([...o.locks, ...o.claims], tableOptions)]),
      ...(delayed.length > 0 ? [['lapsed, still binding others for their lock-delay', lockTable(delayed, tableOptions)]] : []),
    ];
    const human = () => (rows.length === 0 ? 'nobody holds anything' : joinLines([...groups.flatMap((group, i) => [...(i > 0 ? [''] : []), ...group]), ...notes]));
    return success({ owners, ...(delayed.length > 0 ? { lock_delay: delayed } : {}) }, human);
  });
}
