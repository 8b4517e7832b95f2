import { Command } from 'commander';
import { parseNonNegativeDuration } from '../../core/time';
import { sweep } from '../../coord/sweep';
import { countOf } from '../../core/plural';
import { commonCommand, withContext, type CommonOptions } from '../common';
import { success, type Reply } from '../reply';

interface SweepOptions extends CommonOptions {
  olderThan?: string;
  dryRun?: boolean;
}

export function sweepCommand(emit: (reply: Reply) => void): Command {
  return commonCommand('sweep', 'mark expired locks released; with --older-than, delete old released locks and events')
    .option('--older-than <duration>', 'also purge released locks and events older than this')
    .option('--dry-run', 'count what would change, change nothing')
    .action(async (options: SweepOptions) => emit(await runSweep(options)));
}

async function runSweep(options: SweepOptions): Promise<Reply> {
  const olderThanMs = options.olderThan !== undefined ? parseNonNegativeDuration(options.olderThan, '--older-than', 3650 * 86_400_000) : undefined;
  return withContext(options, true, async (ctx) => {
    const result = await sweep(ctx, { olderThanMs, dryRun: Boolean(options.dryRun) });
    const [mark, purge, remove] = result.dry_run ? ['would mark', 'would purge', 'would delete'] : ['marked', 'purged', 'deleted'];
    // A dry run without --older-than purges nothing by design: no "purged 0 locks" line for it.
    const purged = result.dry_run && olderThanMs === undefined ? '' : `; ${purge} ${countOf(result.purged_locks, 'lock')} and ${countOf(result.purged_events, 'event')}`;
    return success(
      { ...result },
      () =>
        `${mark} ${result.expired} expired${purged}${result.index_files > 0 ? `; ${remove} ${countOf(result.index_files, 'idle staging area')}` : ''}${result.dropped_pins > 0 ? `; ${remove} ${countOf(result.dropped_pins, 'kept content')} past 14 days` : ''}${result.dry_run ? ' (dry run)' : ''}`,
    );
  });
}
