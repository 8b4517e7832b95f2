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
import { claimCommand, lockCommand, unclaimCommand, unlockCommand } from './commands/named';
import { whoCommand } from './commands/who';
import { heartbeatCommand } from './commands/heartbeat';
import { eventsCommand } from './commands/events';
import { statsCommand } from './commands/stats';
import { doctorCommand } from './commands/doctor';
import { hookCommand } from './commands/hook';
import { installCommand, uninstallCommand } from './commands/install';
import { statuslineCommand } from './commands/statusline';
import { version } from '../../package.json';

// One source for the version: esbuild inlines just this field of package.json into the bundle.
export const VERSION: string = version;

// The command tree. Commander must never exit by itself: its usage errors become USAGE (64), never 2.
export function buildProgram(emit: (reply: Reply) => void): Command {
  const program = new Command('ic')
    .description('coordination kernel for AI coding agents sharing one git worktree')
    .version(VERSION, '-V, --version')
    .exitOverride()
    .configureOutput({ outputError: () => {} })
    .showSuggestionAfterError(true);

  const coordination = program
    .command('coordination')
    .alias('coord')
    .description('reservations, locks and claims (also installed as `coord`)');

  const commands = [
    reserveCommand, checkCommand, releaseCommand, renewCommand, listCommand, verifyCommand, overlapCommand,
    transferCommand, sweepCommand, lockCommand, unlockCommand, claimCommand, unclaimCommand, whoCommand,
    heartbeatCommand, eventsCommand, statsCommand, hookCommand, installCommand, uninstallCommand, statuslineCommand,
  ];
  for (const make of commands) {
    coordination.addCommand(configure(make(emit)));
  }
  program.addCommand(configure(initCommand(emit)));
  program.addCommand(configure(doctorCommand(emit)));
  return program;
}

// addCommand (unlike .command) does not inherit settings: give each command the same error handling.
function configure(command: Command): Command {
  return command.exitOverride().configureOutput({ outputError: () => {} }).showSuggestionAfterError(true);
}

// Commander's own errors, as the contract's USAGE error; help and version are successes.
export function fromCommanderError(error: CommanderError): IcError | 'exit-0' {
  if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help' && error.exitCode === 0) return 'exit-0';
  const message = error.code === 'commander.help' ? 'a command is required (see the help above)' : error.message.replace(/^error:\s*/i, '');
  return new IcError('USAGE', message, { hint: 'Try: ic --help' });
}
