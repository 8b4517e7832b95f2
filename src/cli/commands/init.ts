import { Command } from 'commander';
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { schemaVersion } from '../../store/migrate';
import { findGitInfo } from '../../store/discover';
import { withCommonOptions, withContext, type CommonOptions } from '../common';
import { success, type Reply } from '../reply';

export function initCommand(emit: (reply: Reply) => void): Command {
  return withCommonOptions(new Command('init'))
    .description('create the project database and keep .ic/ out of git')
    .action((options: CommonOptions) => emit(runInit(options)));
}

// Adds `.ic/` to .git/info/exclude once, so the database is never committed (and no .gitignore is touched).
export function excludeFromGit(projectRoot: string): string | null {
  const git = findGitInfo(projectRoot);
  if (!git) return null;
  const exclude = join(git.commonDir, 'info', 'exclude');
  const existing = existsSync(exclude) ? readFileSync(exclude, 'utf8') : '';
  if (existing.split(/\r?\n/).some((line) => line.trim() === '.ic/' || line.trim() === '/.ic/')) return exclude;
  mkdirSync(dirname(exclude), { recursive: true });
  appendFileSync(exclude, `${existing === '' || existing.endsWith('\n') ? '' : '\n'}.ic/\n`);
  return exclude;
}

function runInit(options: CommonOptions): Reply {
  return withContext(options, true, (ctx) => {
    const excluded = excludeFromGit(ctx.projectRoot);
    const json = { db: ctx.dbLocation.path, schema_version: schemaVersion(ctx.db), scope: ctx.scope, git_exclude: excluded };
    return success(json, () => `database ready at ${json.db} (schema ${json.schema_version})${excluded ? `; .ic/ excluded in ${excluded}` : ''}`);
  });
}
