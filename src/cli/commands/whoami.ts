import { Command } from 'commander';
import { formatTime } from '../../core/time';
import { validateOwner } from '../../core/owner';
import { escapeForDisplay } from '../../core/names';
import { explainOwner, ownerOption, commonCommand, type CommonOptions } from '../common';
import { success, type Reply } from '../reply';

export function whoamiCommand(emit: (reply: Reply) => void): Command {
  return commonCommand('whoami', 'which owner this shell or process acts as, and why (--owner, $IC_OWNER, an agent session it runs in, or none)')
    .addOption(ownerOption())
    .action(async (options: CommonOptions) => emit(await runWhoami(options)));
}

const WHY = {
  flag: 'the --owner flag',
  env: '$IC_OWNER',
  session: 'an agent session found through the parent processes',
  none: 'no --owner, no $IC_OWNER, and no agent session among the parent processes',
} as const;

// Exit 0 with the owner; exit 1 (the answer is no) when write commands would refuse for want of one.
async function runWhoami(options: CommonOptions): Promise<Reply> {
  const found = await explainOwner(options, process.env);
  const owner = found.owner === undefined || found.owner === '' ? undefined : validateOwner(found.owner);
  const session = 'session' in found && found.session ? found.session : undefined;
  const sessionJson = session && { owner: session.owner, agent: session.agent, pid: session.pid, since: formatTime(session.created_at), last_seen: formatTime(session.last_seen) };
  const json = { owner: owner ?? null, source: found.source, why: WHY[found.source], ...(sessionJson ? { session: sessionJson } : {}) };
  const human = () => {
    if (owner === undefined) return `no owner: ${WHY.none}; write commands need --owner NAME or IC_OWNER`;
    const lines = [`${escapeForDisplay(owner)} (from ${WHY[found.source]})`];
    if (session && found.source === 'session') lines.push(`  ${session.agent} session, client process pid ${session.pid}, since ${formatTime(session.created_at)}`);
    if (session && found.source === 'env') lines.push(`  $IC_OWNER names someone other than the ${session.agent} session ${escapeForDisplay(session.owner)} this runs in: the explicit name wins`);
    return lines.join('\n');
  };
  return success(json, human, owner === undefined ? 1 : 0);
}
