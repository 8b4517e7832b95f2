import { Command } from 'commander';
import { formatNullableTime, parseNonNegativeDuration } from '../../core/time';
import { stats } from '../../coord/stats';
import { commonCommand, withContext, type CommonOptions } from '../common';
import { success, type Reply } from '../reply';

export function statsCommand(emit: (reply: Reply) => void): Command {
  return commonCommand('stats', 'tries, grants, conflicts, waits, expiries and the most contended patterns')
    .option('--since <duration>', 'only the last duration (e.g. 1h, 7d)')
    .action(async (options: CommonOptions & { since?: string }) => emit(await runStats(options)));
}

const percent = (rate: number) => `${(rate * 100).toFixed(1)}%`;

async function runStats(options: CommonOptions & { since?: string }): Promise<Reply> {
  const sinceMs = options.since !== undefined ? parseNonNegativeDuration(options.since, '--since') : undefined;
  return withContext(options, false, async (ctx) => {
    const figures = await stats(ctx, sinceMs);
    const json = { ...figures, since: formatNullableTime(figures.since) };
    const human = () =>
      [
        `tries ${figures.tries}  grants ${figures.grants}  renewals ${figures.renewals}  denied ${figures.denied_tries} (${percent(figures.conflict_rate)})`,
        `waits ${figures.waits} (${percent(figures.wait_rate)})  expiries ${figures.expiries}  releases ${figures.releases}  force releases ${figures.force_releases}  transfers ${figures.transfers}`,
        ...figures.most_contended_patterns.map((p) => `  contended: ${p.pattern} (${p.conflicts})`),
      ].join('\n');
    return success(json, human);
  });
}
