import { Command } from 'commander';
import { readConfig, writeConfig, type SettingView } from '../../coord/config';
import { commonCommand, withContext, type CommonOptions } from '../common';
import { success, type Reply } from '../reply';

// `ic config [NAME [VALUE]]`: the repository's settings, stored with the database (coord/config.ts).
export function configCommand(emit: (reply: Reply) => void): Command {
  return commonCommand('config', "show or set the repository's settings, stored with its database (stall-after)")
    .argument('[name]', 'a setting: stall-after')
    .argument('[value]', 'its new value (e.g. 30m); without it, the setting is shown')
    .action(async (name: string | undefined, value: string | undefined, options: CommonOptions) => emit(await runConfig(name, value, options)));
}

const line = (s: SettingView) => `${s.name} = ${s.value}${s.default ? ' (default)' : ''}  — ${s.describe}`;

async function runConfig(name: string | undefined, value: string | undefined, options: CommonOptions): Promise<Reply> {
  if (value === undefined) {
    return withContext(options, false, async (ctx) => {
      const settings = await readConfig(ctx, name);
      return success({ settings }, () => settings.map(line).join('\n'));
    });
  }
  return withContext(options, true, async (ctx) => {
    const { setting, previous } = await writeConfig(ctx, name!, value);
    return success({ settings: [setting], previous }, () => `${setting.name} = ${setting.value} (was ${previous})`);
  });
}
