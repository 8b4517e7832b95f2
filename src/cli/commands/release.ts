import { Command } from 'commander';
import { IcError } from '../../core/errors';
import { ID_PATTERN } from '../../core/ids';
import { viewLock, type LockType } from '../../core/lock';
import { commandLinePattern } from '../../coord/paths';
import { release, type ReleaseResult } from '../../coord/release';
import { ownerOption, projectFor, resolveOwner, commonCommand, withContext, type CommonOptions } from '../common';
import { failure, success, type Reply } from '../reply';
import { joinLines, lockTable } from '../render';
import { escapeForDisplay } from '../../core/names';
import { shellQuote } from '../../core/shell';

interface ReleaseOptions extends CommonOptions {
  pattern?: string;
  all?: boolean;
  claims?: boolean;
  everything?: boolean;
  force?: boolean;
  reason?: string;
}

export function releaseCommand(emit: (reply: Reply) => void): Command {
  return commonCommand('release', "release locks: by ID, by --pattern, or --all of the owner's file locks")
    .argument('[ids...]', 'lock IDs')
    .addOption(ownerOption())
    .option('--pattern <pattern>', "release the owner's file lock on exactly this pattern")
    .option('--all', "release all of the owner's file locks in the scope")
    .option('--claims', "release all of the owner's claims in the scope (with --all: file locks and claims)")
    .option('--everything', "release all of the owner's file locks, named locks and claims in the scope")
    .option('--force', "release another owner's lock (recorded as force_released, with who did it)")
    .option('--reason <text>', 'why, kept in the events')
    .action(async (ids: string[], options: ReleaseOptions) => emit(await runRelease(ids, options)));
}

// --all means file locks: a claim or a named lock is given up by name (unclaim, unlock) or by asking for it.
function typesToRelease(options: ReleaseOptions): LockType[] | undefined {
  if (options.everything) return ['file', 'named', 'claim'];
  const types: LockType[] = [];
  if (options.all) types.push('file');
  if (options.claims) types.push('claim');
  return types.length > 0 ? types : undefined;
}

async function runRelease(ids: string[], options: ReleaseOptions): Promise<Reply> {
  const owner = await resolveOwner(options, process.env); // even --force names who did it
  const pattern = options.pattern !== undefined ? commandLinePattern(projectFor(options), process.cwd(), options.pattern) : undefined;
  const allTypes = typesToRelease(options);
  return withContext(options, true, async (ctx) => {
    const result = await release(ctx, {
      ids,
      owner,
      pattern,
      type: pattern !== undefined ? 'file' : undefined,
      all: allTypes !== undefined,
      allTypes,
      force: Boolean(options.force),
      reason: options.reason ?? null,
    });
    const released = result.released.map(viewLock);
    const near = (result.near ?? []).map(viewLock);
    const json = { released, not_released: result.not_released, ...(result.near ? { near } : {}) };
    const human = () => joinLines([released.length ? lockTable(released) : 'nothing released', ...result.not_released.map((n) => `  ${whyText(n)}`), ...nearLines(result)]);
    if (released.length > 0) return success(json, human);
    const whys = new Set(result.not_released.map((n) => n.why));
    const code = whys.has('not_owner') ? 'NOT_OWNER' : 'NOT_FOUND';
    const patternLike = result.not_released.find((n) => n.why === 'not_found' && !ID_PATTERN.test(n.id));
    const hint = patternLike ? { hint: `Try: coord release --pattern ${shellQuote(patternLike.id)}` } : code === 'NOT_OWNER' ? { hint: 'Try: --force (recorded as force_released)' } : {};
    return failure(new IcError(code, nothingReleased(result, pattern), hint), json, human);
  });
}

// One not-released id, as a person reads it: whose lock it is and how to take it anyway; a pattern
// typed where an id goes gets pointed at --pattern.
function whyText(n: ReleaseResult['not_released'][number]): string {
  if (n.why === 'not_owner' && n.owner !== undefined) return `${n.id}: not owner (held by ${escapeForDisplay(n.owner)}; --force releases it anyway, recorded as force_released)`;
  if (n.why === 'not_found' && !ID_PATTERN.test(n.id)) return `${escapeForDisplay(n.id)}: not a lock ID; did you mean \`--pattern ${shellQuote(n.id)}\`?`;
  return `${n.id}: ${n.why.replace('_', ' ')}`;
}

function nothingReleased(result: ReleaseResult, pattern: string | undefined): string {
  if (result.not_released.length > 0) return `nothing released: ${result.not_released.map(whyText).join(', ')}`;
  if (pattern !== undefined && result.near && result.near.length > 0) {
    return `nothing released: no lock on exactly ${pattern}; near matches: ${result.near.map((lock) => `${lock.pattern} (${lock.id}, ${lock.owner})`).join(', ')}; release by ID or give the exact pattern`;
  }
  if (pattern !== undefined) return `nothing released: no lock on ${pattern}, and no active file lock overlaps it`;
  return 'nothing released: no matching locks held';
}

function nearLines(result: ReleaseResult): string[] {
  if (!result.near || result.near.length === 0) return [];
  return ['near matches (release by ID or give the exact pattern):', ...result.near.map((lock) => `  ${lock.id}  ${lock.owner}  ${lock.pattern}`)];
}
