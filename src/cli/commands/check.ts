import { Command } from 'commander';
import { check } from '../../coord/check';
import { commandLinePattern } from '../../coord/paths';
import { checkWorkLimit } from '../../core/conflict';
import { describeConflict, optionalOwner, ownerOption, projectFor, viewConflict, commonCommand, withContext, type CommonOptions } from '../common';
import { success, type Reply } from '../reply';

export function checkCommand(emit: (reply: Reply) => void): Command {
  return commonCommand('check', 'would a reserve be granted? (read-only; exit 1 if not free)')
    .argument('<paths...>', 'paths or patterns, relative to the current directory (":/PATTERN": from the scope root)')
    .addOption(ownerOption())
    .option('--shared', 'ask about a shared reservation')
    .action(async (paths: string[], options: CommonOptions & { shared?: boolean }) => emit(await runCheck(paths, options)));
}

async function runCheck(rawPatterns: string[], options: CommonOptions & { shared?: boolean }): Promise<Reply> {
  // Without an owner the question is "is it free for anyone new?": every holder counts ('' is no owner).
  const owner = (await optionalOwner(options, process.env)) ?? '';
  checkWorkLimit('patterns', rawPatterns.length); // before any file-system or database work
  const project = projectFor(options);
  const patterns = rawPatterns.map((pattern) => commandLinePattern(project, process.cwd(), pattern));
  return withContext(
    options,
    false,
    async (ctx) => {
      const conflicts = await check(ctx, { type: 'file', patterns, owner, mode: options.shared ? 'shared' : 'exclusive' });
      const free = conflicts.length === 0;
      const now = await ctx.db.now(ctx.clock); // the database's clock (the server's on PostgreSQL), for "in 13m"
      // "Not free" is an answer, not a failure: ok stays true and the exit code says no.
      return success({ free, conflicts: conflicts.map(viewConflict) }, () => (free ? 'free' : `not free:\n${conflicts.map((c) => `  ${describeConflict(c, now)}`).join('\n')}`), free ? 0 : 1);
    },
    project,
  );
}
