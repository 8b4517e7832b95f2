import { Command } from 'commander';
import { readConfig, writeConfig, type SettingView } from '../../coord/config';
import { commonCommand, withContext, type CommonOptions } from '../common';
import { success, type Reply } from '../reply';

// `ic config [NAME [VALUE]]`: the repository's settings, stored with the database (coord/config.ts).
export function configCommand(emit: (reply: Reply) => void): Command {
  return commonCommand('config', "show or set the repository's settings, stored with its database (stall-after)")
    .argument('[name]', 'a setting: stall-after')
    .argument('[value]', 'its new value (e.g. 30m); without it, the setting is shown')
    .action((name: string | undefined, value: string | undefined, options: CommonOptions) => emit(runConfig(name, value, options)));
}

const line = (s: SettingView) => `${s.name} = ${s.value}${s.default ? ' (default)' : ''}  — ${s.describe}`;

function runConfig(name: string | undefined, value: string | undefined, options: CommonOptions): Reply {
  if (value === undefined) {
    return withContext(options, false, (ctx) => {
      const settings = readConfig(ctx, name);
      return success({ settings }, () => settings.map(line).join('\n'));
    });
  }
  return withContext(options, true, (ctx) => {
    const { setting, previous } = writeConfig(ctx, name!, value);
    return success({ settings: [setting], previous }, () => `${setting.name} = ${setting.value} (was ${previous})`);
  });
}
