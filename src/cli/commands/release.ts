import { Command } from 'commander';
import { IcError } from '../../core/errors';
import { viewLock } from '../../core/lock';
import { commandLinePattern } from '../../coord/paths';
import { release } from '../../coord/release';
import { optionalOwner, ownerOption, projectFor, withCommonOptions, withContext, type CommonOptions } from '../common';
import { failure, success, type Reply } from '../reply';
import { lockTable } from '../render';

interface ReleaseOptions extends CommonOptions {
  pattern?: string;
  all?: boolean;
  force?: boolean;
  reason?: string;
}

export function releaseCommand(emit: (reply: Reply) => void): Command {
  return withCommonOptions(new Command('release'))
    .description("release locks: by ID, by --pattern, or --all of the owner's")
    .argument('[ids...]', 'lock IDs')
    .addOption(ownerOption())
    .option('--pattern <pattern>', "release the owner's locks on this pattern")
    .option('--all', "release all of the owner's locks in the scope")
    .option('--force', "release another owner's lock (recorded as force_released)")
    .option('--reason <text>', 'why, kept in the events')
    .action((ids: string[], options: ReleaseOptions) => emit(runRelease(ids, options)));
}

function runRelease(ids: string[], options: ReleaseOptions): Reply {
  const owner = optionalOwner(options, process.env);
  const pattern = options.pattern !== undefined ? commandLinePattern(projectFor(options), process.cwd(), options.pattern) : undefined;
  return withContext(options, true, (ctx) => {
    const result = release(ctx, { ids, owner, pattern, type: pattern !== undefined ? 'file' : undefined, all: Boolean(options.all), force: Boolean(options.force), reason: options.reason ?? null });
    const released = result.released.map(viewLock);
    const json = { released, not_released: result.not_released };
    const human = () => [released.length ? lockTable(released) : 'nothing released', ...result.not_released.map((n) => `  ${n.id}: ${n.why.replace('_', ' ')}`)].join('\n');
    if (released.length > 0) return success(json, human);
    const whys = new Set(result.not_released.map((n) => n.why));
    const code = whys.has('not_owner') ? 'NOT_OWNER' : 'NOT_FOUND';
    const message = result.not_released.length ? `nothing released: ${result.not_released.map((n) => `${n.id} ${n.why.replace('_', ' ')}`).join(', ')}` : 'nothing released: no matching locks held';
    return failure(new IcError(code, message), json, human);
  });
}
