import { Command } from 'commander';
import { viewLock } from '../../core/lock';
import { formatTime } from '../../core/time';
import { who } from '../../coord/who';
import { withCommonOptions, withContext, type CommonOptions } from '../common';
import { success, type Reply } from '../reply';
import { relativeTime, table } from '../render';

export function whoCommand(emit: (reply: Reply) => void): Command {
  return withCommonOptions(new Command('who'))
    .description('who holds what: active locks and claims by owner, most recently active first')
    .option('--all-scopes', 'every scope in the database')
    .action((options: CommonOptions & { allScopes?: boolean }) => emit(runWho(options)));
}

function runWho(options: CommonOptions & { allScopes?: boolean }): Reply {
  return withContext(options, false, (ctx) => {
    const owners = who(ctx, Boolean(options.allScopes)).map((entry) => ({
      owner: entry.owner,
      last_active: formatTime(entry.last_active),
      locks: entry.locks.map(viewLock),
      claims: entry.claims.map(viewLock),
      stalled_claims: entry.stalled_claims,
      handoff_requests: entry.handoff_requests.map((request) => ({ ...request, at: formatTime(request.at) })),
    }));
    const human = () =>
      owners.length === 0
        ? 'nobody holds anything'
        : table(
            ['OWNER', 'ACTIVE', 'LOCKS', 'CLAIMS'],
            owners.map((o) => [o.owner, relativeTime(o.last_active), o.locks.map((l) => l.pattern).join(' ') || '-', o.claims.map((c) => `${c.pattern}${o.stalled_claims.includes(c.pattern) ? ' (stalled)' : ''}${o.handoff_requests.some((r) => r.item === c.pattern) ? ' (asked for)' : ''}`).join(' ') || '-']),
          );
    return success({ owners }, human);
  });
}
