import { Command } from 'commander';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { resolveProject, type CoordContext } from '../../coord/context';
import { DB_DIR } from '../../store/discover';
import { viewLock } from '../../core/lock';
import { importLocks } from '../../coord/import';
import { archiveImported } from '../../store/legacy';
import { schemaVersion } from '../../store/migrate';
import { viewConflict, withCommonOptions, withContext, type CommonOptions } from '../common';
import { success, type Reply } from '../reply';

interface InitOptions extends CommonOptions {
  import?: string;
}

export function initCommand(emit: (reply: Reply) => void): Command {
  return withCommonOptions(new Command('init'))
    .description('create the project database (in a git repository: <git common dir>/ic/ic.db, outside every work tree)')
    .option('--import <path>', 'bring the live locks of another ic database (the 0.1 .ic/ic.db) into this one, then rename it PATH.imported')
    .action((options: InitOptions) => emit(runInit(options)));
}

// Outside git, `ic init` makes its directory a project root (.ic/), also when --db puts the database elsewhere:
// hooks find a file's project by that mark, and without one they coordinate nothing.
function markProjectRoot(ctx: CoordContext): void {
  if (ctx.unmarked) mkdirSync(join(ctx.projectRoot, DB_DIR), { recursive: true });
}

function runInit(options: InitOptions): Reply {
  const project = resolveProject(process.cwd(), options.scope, { init: true });
  return withContext(
    options,
    'init',
    (ctx) => {
      markProjectRoot(ctx);
      const base = { db: ctx.dbLocation.path, schema_version: schemaVersion(ctx.db), scope: ctx.scope };
      if (options.import === undefined) return success(base, () => `database ready at ${base.db} (schema ${base.schema_version})`);
      const from = resolve(ctx.cwd, options.import);
      const result = importLocks(ctx, from);
      const movedTo = archiveImported(from);
      const imported = {
        from,
        moved_to: movedTo,
        locks: result.locks.map(viewLock),
        skipped: result.skipped.map(({ lock, conflicts }) => ({ type: lock.type, pattern: lock.pattern, owner: lock.owner, conflicts: conflicts.map(viewConflict) })),
      };
      const human = () =>
        [
          `imported ${imported.locks.length} live lock(s) from ${from} into ${base.db}; the old file is now ${movedTo}`,
          ...imported.skipped.map((s) => `  skipped ${s.type} ${s.pattern} of ${s.owner}: it conflicts with a lock held here`),
        ].join('\n');
      return success({ ...base, imported }, human);
    },
    project,
  );
}
