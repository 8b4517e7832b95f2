import { Command } from 'commander';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { viewLock } from '../../core/lock';
import { clockFromEnv, resolveProject, type CoordContext } from '../../coord/context';
import { importLocks, readImport, type ImportRow } from '../../coord/import';
import { DB_DIR, locateDb } from '../../store/discover';
import { storeSchemaVersion } from '../../store/migrate';
import { viewConflict, withCommonOptions, withContext, type CommonOptions } from '../common';
import { success, type Reply } from '../reply';

interface InitOptions extends CommonOptions {
  import?: string;
}

export function initCommand(emit: (reply: Reply) => void): Command {
  return withCommonOptions(new Command('init'))
    .description('create the project database (in a git repository: <git common dir>/ic/ic.db, outside every work tree)')
    .option('--import <path>', 'bring the live locks of another ic database (the 0.1 .ic/ic.db) into this one; the source is left unchanged')
    .action((options: InitOptions) => emit(runInit(options)));
}

// Outside git, `ic init` makes its directory a project root (.ic/), also when --db puts the database elsewhere:
// hooks find a file's project by that mark, and without one they coordinate nothing.
function markProjectRoot(ctx: CoordContext): void {
  if (ctx.unmarked) mkdirSync(join(ctx.projectRoot, DB_DIR), { recursive: true });
}

function runInit(options: InitOptions): Reply {
  const cwd = process.cwd();
  const project = resolveProject(cwd, options.scope, { init: true });
  // The source is read and every row checked before the database is opened: a refused import creates nothing.
  let from: string | undefined;
  let rows: ImportRow[] = [];
  if (options.import !== undefined) {
    from = resolve(cwd, options.import);
    const location = locateDb({ env: process.env, dbFlag: options.db, cwd, projectDb: project.db });
    rows = readImport(project, from, location.path, clockFromEnv(process.env)());
  }
  return withContext(
    options,
    'init',
    (ctx) => {
      markProjectRoot(ctx);
      const base = { db: ctx.dbLocation.path, schema_version: storeSchemaVersion(ctx.db), scope: ctx.scope };
      if (from === undefined) return success(base, () => `database ready at ${base.db} (schema ${base.schema_version})`);
      const result = importLocks(ctx, rows);
      const imported = {
        from,
        moved_to: null, // kept for readers of 0.2's output: the source is no longer renamed
        locks: result.locks.map(viewLock),
        skipped: result.skipped.map(({ lock, conflicts }) => ({ type: lock.type, pattern: lock.pattern, owner: lock.owner, conflicts: conflicts.map(viewConflict) })),
      };
      const human = () =>
        [
          `imported ${imported.locks.length} live lock(s) from ${from} into ${base.db}; ${from} is left as it was (remove it when you no longer need it)`,
          ...imported.skipped.map((s) => `  skipped ${s.type} ${s.pattern} of ${s.owner}: it conflicts with a lock held here`),
        ].join('\n');
      return success({ ...base, imported }, human);
    },
    project,
  );
}
