import { Command } from 'commander';
import { schemaVersion } from '../../store/migrate';
import { withCommonOptions, withContext, type CommonOptions } from '../common';
import { success, type Reply } from '../reply';

export function initCommand(emit: (reply: Reply) => void): Command {
  return withCommonOptions(new Command('init'))
    .description('create the project database (in a git repository: <git common dir>/ic/ic.db, outside every work tree)')
    .action((options: CommonOptions) => emit(runInit(options)));
}

function runInit(options: CommonOptions): Reply {
  return withContext(options, true, (ctx) => {
    const json = { db: ctx.dbLocation.path, schema_version: schemaVersion(ctx.db), scope: ctx.scope };
    return success(json, () => `database ready at ${json.db} (schema ${json.schema_version})`);
  });
}
