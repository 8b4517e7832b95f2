import { Command, CommanderError } from 'commander';
import { IcError } from '../core/errors';
import type { Reply } from './reply';
import { checkCommand } from './commands/check';
import { initCommand } from './commands/init';
import { listCommand } from './commands/list';
import { overlapCommand } from './commands/overlap';
import { releaseCommand } from './commands/release';
import { renewCommand } from './commands/renew';
import { reserveCommand } from './commands/reserve';
import { verifyCommand } from './commands/verify';
import { transferCommand } from './commands/transfer';
import { sweepCommand } from './commands/sweep';
import { undoCommand } from './commands/undo';
import { claimCommand, lockCommand, unclaimCommand, unlockCommand } from './commands/named';
import { whoCommand } from './commands/who';
import { heartbeatCommand } from './commands/heartbeat';
import { eventsCommand } from './commands/events';
import { statsCommand } from './commands/stats';
import { doctorCommand } from './commands/doctor';
import { whoamiCommand } from './commands/whoami';
import { configCommand } from './commands/config';
import { hookCommand } from './commands/hook';
import { installCommand, uninstallCommand } from './commands/install';
import { statuslineCommand } from './commands/statusline';
import { completionScript, SHELLS } from './help/completion';
import { examplesText } from './help/examples';
import { groupedHelp } from './help/groups';
import { manPage } from './help/man';
import { version } from '../../package.json';

// One source for the version: esbuild inlines just this field of package.json into the bundle.
export const VERSION: string = version;

// The command tree. Commander must never exit by itself: its usage errors become USAGE (64), never 2.
export function buildProgram(emit: (reply: Reply) => void): Command {
  const program = configure(new Command('ic').description('coordination kernel for AI coding agents sharing one git worktree').version(VERSION, '-v, --version')); // -V too: help/args.ts spells it --version

  const coordination = program.command('coordination').alias('coord').description('reservations, locks and claims (also installed as `coord`)');
  acceptBeforeSubcommand(coordination, ['db', 'scope']);

  const commands = [
    reserveCommand,
    checkCommand,
    releaseCommand,
    renewCommand,
    listCommand,
    verifyCommand,
    overlapCommand,
    transferCommand,
    sweepCommand,
    lockCommand,
    unlockCommand,
    claimCommand,
    unclaimCommand,
    whoCommand,
    heartbeatCommand,
    eventsCommand,
    undoCommand,
    statsCommand,
    hookCommand,
    installCommand,
    uninstallCommand,
    statuslineCommand,
  ];
  for (const make of commands) coordination.addCommand(configure(make(emit)));
  for (const make of [initCommand, doctorCommand, configCommand, whoamiCommand]) program.addCommand(configure(make(emit)));
  program.addCommand(configure(completionCommand(program)));
  program.addCommand(configure(manCommand(program)), { hidden: true });
  // `ic --help` and `coord --help` list every command, grouped; one command's help ends with its examples.
  program.helpInformation = () => groupedHelp(program, VERSION);
  coordination.helpInformation = () => groupedHelp(program, VERSION);
  return program;
}

// `coord --db X list` means `coord list --db X`: the value given before the subcommand is handed to it, and
// one given after the subcommand wins (commander parses the subcommand's own flags after this hook).
function acceptBeforeSubcommand(parent: Command, names: readonly ('db' | 'scope')[]): void {
  parent.option('--db <path>', 'database file or postgres:// URL, for the command that follows').option('--scope <dir>', 'scope directory, for the command that follows');
  parent.hook('preSubcommand', (_parent, sub) => {
    for (const name of names) {
      const value: unknown = parent.getOptionValue(name);
      if (value !== undefined && sub.options.some((option) => option.attributeName() === name)) sub.setOptionValueWithSource(name, value, 'cli');
    }
  });
}

// Scripts, not replies: printed as they are on a pipe too, since that is where they go.
function completionCommand(program: Command): Command {
  return new Command('completion')
    .description(`print a tab-completion script for ${SHELLS.join(', ')}`)
    .argument('<shell>', SHELLS.join(' | '))
    .action((shell: string) => void process.stdout.write(completionScript(program, shell)));
}

function manCommand(program: Command): Command {
  return new Command('man').description('print the manual page (roff); scripts/man.mjs writes man/ic.1').action(() => void process.stdout.write(manPage(program, VERSION)));
}

// addCommand (unlike .command) does not inherit settings: give each command (and ic itself) the same error handling.
function configure(command: Command): Command {
  return command
    .exitOverride()
    .configureOutput({ outputError: () => {} })
    .showSuggestionAfterError(true)
    .addHelpText('after', () => examplesText(command.name()));
}

// Commander's own errors, as the contract's USAGE error; help and version are successes.
export function fromCommanderError(error: CommanderError): IcError | 'exit-0' {
  if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || (error.code === 'commander.help' && error.exitCode === 0)) return 'exit-0';
  const message = error.code === 'commander.help' ? 'a command is required (see the help above)' : error.message.replace(/^error:\s*/i, '');
  return new IcError('USAGE', message, { hint: 'Try: ic --help' });
}
