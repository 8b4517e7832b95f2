import { Command } from 'commander';
import { countOf } from '../../core/plural';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { viewLock } from '../../core/lock';
import { clockFromEnv, resolveProject, resolveWorkspace, type Project } from '../../coord/context';
import { importLocks, readImport, type ImportRow } from '../../coord/import';
import { DB_CONFIG_KEY, DB_DIR, isServerDb, type DbLocation } from '../../store/discover';
import { withoutPassword } from '../../store/postgres/url';
import { otherProjectNames, projectIdentity, setProjectKey, validateProjectKey, PROJECT_CONFIG_KEY } from '../../coord/project-key';
import type { PgConnection } from '../../store/postgres/pg-connection';
import { execFileSync } from 'node:child_process';
import { storeSchemaVersion } from '../../store/migrate';
import { viewConflict, commonCommand, withContext, type CommonOptions } from '../common';
import { success, type Reply } from '../reply';

interface InitOptions extends CommonOptions {
  import?: string;
  project?: string;
}

export function initCommand(emit: (reply: Reply) => void): Command {
  return commonCommand('init', 'create the project database (in a git repository: <git common dir>/ic/ic.db, outside every work tree)')
    .option('--import <path>', 'bring the live locks of another ic database (the 0.1 .ic/ic.db) into this one; the source is left unchanged')
    .option('--project <key>', "name this repository's project (stored as git config ic.project): on a PostgreSQL database, the scope every clone with the same key shares")
    .action(async (options: InitOptions) => emit(await runInit(options)));
}

async function runInit(options: InitOptions): Promise<Reply> {
  const cwd = process.cwd();
  const project = resolveWorkspace(cwd, { env: process.env, dbFlag: options.db, scopeFlag: options.scope, init: true });
  // The source is read and every row checked before the database is opened: a refused import creates nothing.
  let from: string | undefined;
  let rows: ImportRow[] = [];
  if (options.import !== undefined) {
    from = resolve(cwd, options.import);
    rows = readImport(project, from, project.db.path, clockFromEnv(process.env)());
  }
  const restoreProject = options.project === undefined ? undefined : nameProject(project.projectRoot, validateProjectKey(options.project));
  try {
    return await initDatabase(options, project, from, rows);
  } catch (error) {
    restoreProject?.();
    throw error;
  }
}

// `--project KEY` is stored before the database is opened (the scope is read from it), and put back as it
// was when init fails: a failed command changes nothing.
function nameProject(root: string, key: string): () => void {
  let before: string | undefined;
  try {
    before = execFileSync('git', ['-C', root, 'config', '--get', PROJECT_CONFIG_KEY], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    before = undefined;
  }
  setProjectKey(root, key);
  return () => {
    try {
      execFileSync('git', ['-C', root, 'config', ...(before === undefined ? ['--unset', PROJECT_CONFIG_KEY] : [PROJECT_CONFIG_KEY, before])], { stdio: 'ignore' });
    } catch {
      // best effort: the failure being reported matters more
    }
  };
}

async function initDatabase(options: InitOptions, project: ReturnType<typeof resolveProject>, from: string | undefined, rows: ImportRow[]): Promise<Reply> {
  return withContext(
    options,
    'init',
    async (ctx) => {
      // Outside git, `ic init` makes its directory a project root (.ic/), also when --db puts the database
      // elsewhere: hooks find a file's project by that mark, and without one they coordinate nothing.
      if (ctx.unmarked) mkdirSync(join(ctx.projectRoot, DB_DIR), { recursive: true });
      const named = options.project !== undefined || isServerDb(ctx.dbLocation) ? { project: projectIdentity(ctx.projectRoot, ctx.git) } : {};
      const alsoNamed = ctx.db.engine === 'postgres' ? await otherProjectNames(ctx.db as PgConnection, ctx.projectRoot, named.project!) : [];
      const also = alsoNamed.length > 0 ? { also_named: alsoNamed } : {};
      const recorded = recordServer(ctx.dbLocation, project);
      // A password in the URL is never recorded: said, with where the clone's later calls can find one.
      const dropped = recorded !== undefined && recorded !== ctx.dbLocation.url ? { password_not_recorded: PASSWORD_HINT } : {};
      const base = { db: ctx.dbLocation.path, schema_version: await storeSchemaVersion(ctx.db), scope: ctx.scope, ...named, ...also, ...(recorded ? { db_recorded: recorded } : {}), ...dropped };
      // A clone of a project named by a key elsewhere: said, not guessed (a fork has the same commits).
      const alsoText = alsoNamed.length > 0 ? `; this repository is also the project ${alsoNamed.join(', ')} on this database (to join it: ic init --project KEY)` : '';
      const recordedText = recorded
        ? `; this clone uses it from now on without IC_DB (git config ${DB_CONFIG_KEY}, no password recorded)${dropped.password_not_recorded ? `\nwarning: ${PASSWORD_HINT}` : ''}`
        : '';
      if (from === undefined) return success(base, () => `database ready at ${base.db} (schema ${base.schema_version})${recordedText}${alsoText}`);
      const result = await importLocks(ctx, rows);
      const imported = {
        from,
        moved_to: null, // kept for readers of 0.2's output: the source is no longer renamed
        locks: result.locks.map(viewLock),
        skipped: result.skipped.map(({ lock, conflicts }) => ({ type: lock.type, pattern: lock.pattern, owner: lock.owner, conflicts: conflicts.map(viewConflict) })),
      };
      const human = () =>
        [
          `imported ${countOf(imported.locks.length, 'live lock')} from ${from} into ${base.db}; ${from} is left as it was (remove it when you no longer need it)`,
          ...imported.skipped.map((s) => `  skipped ${s.type} ${s.pattern} of ${s.owner}: it conflicts with a lock held here`),
        ].join('\n');
      return success({ ...base, imported }, human);
    },
    project,
  );
}

const PASSWORD_HINT = "the URL's password was not recorded: give it to later calls in ~/.pgpass (mode 0600) or PGPASSWORD";

// `ic init --db URL` inside git binds the clone to that server: the URL, without any password, goes to the
// clone's git config (ic.db), which every later command, hook and git hook reads when --db and IC_DB are
// unset (src/store/discover.ts). Returns what was recorded.
function recordServer(location: DbLocation, project: Project): string | undefined {
  if (location.source !== '--db' || location.url === undefined || project.projectDb.source !== 'git') return undefined;
  const recorded = withoutPassword(location.url);
  execFileSync('git', ['-C', project.projectRoot, 'config', DB_CONFIG_KEY, recorded], { stdio: 'ignore' });
  return recorded;
}
