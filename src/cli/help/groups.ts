import type { Command } from 'commander';
import { clientList } from '../../hooks/install/clients';

// How `ic --help` groups the commands (as gh does): what a person wants to do, then the commands for it.
export const GROUPS: { title: string; commands: string[] }[] = [
  { title: 'Files: take, test and give back reservations', commands: ['reserve', 'check', 'release', 'renew', 'transfer', 'overlap', 'undo'] },
  { title: 'Named locks and work-item claims', commands: ['lock', 'unlock', 'claim', 'unclaim'] },
  { title: 'Look: who holds what, and what happened', commands: ['list', 'who', 'whoami', 'events', 'stats', 'verify'] },
  { title: 'Set up a repository', commands: ['install', 'uninstall', 'init', 'doctor', 'config', 'completion'] },
  { title: 'Called by agents, hooks and cron', commands: ['hook', 'heartbeat', 'statusline', 'sweep'] },
];

// Commands that live at the top (`ic init`); every other one is `coord NAME` (= `ic coord NAME`).
export const ROOT_COMMANDS = ['init', 'doctor', 'config', 'whoami', 'completion'];

export function invocation(name: string): string {
  return ROOT_COMMANDS.includes(name) ? `ic ${name}` : `coord ${name}`;
}

// Every command by name, from either level of the tree.
export function commandsByName(program: Command): Map<string, Command> {
  const byName = new Map<string, Command>();
  for (const command of program.commands) {
    if (command.name() === 'coordination') for (const sub of command.commands) byName.set(sub.name(), sub);
    else byName.set(command.name(), command);
  }
  return byName;
}

// The help of `ic` and of `coord`: every command, grouped, with how to learn more.
export function groupedHelp(program: Command, version: string): string {
  const byName = commandsByName(program);
  const width = Math.max(...GROUPS.flatMap((group) => group.commands.map((name) => invocation(name).length)));
  const sections = GROUPS.map((group) => {
    const lines = group.commands.filter((name) => byName.has(name)).map((name) => `  ${invocation(name).padEnd(width)}  ${firstClause(byName.get(name)!.description())}`);
    return `${group.title.toUpperCase()}\n${lines.join('\n')}`;
  });
  return [
    `ic ${version} — coordinate AI coding agents (and people) working in one git repository`,
    '',
    'USAGE',
    '  coord <command> [options]        (the same as: ic coord <command>, ic coordination <command>)',
    '  ic init | doctor | config | whoami | completion    (the commands of the database and the shell)',
    '',
    'GET STARTED',
    `  cd your-repo && ic coord install    wire the agents found here (${clientList()}) and git into this repository`,
    '  coord list --active                 see who holds what',
    '',
    ...sections.flatMap((section) => [section, '']),
    'OPTIONS OF EVERY COMMAND',
    '  --db PATH|URL  --scope DIR  --format table|json  --json',
    '',
    'FLAGS',
    '  -v, --version   print the version',
    '  -h, --help      this help; `ic help COMMAND` (or `coord COMMAND --help`) for one command, with examples',
    '',
    'LEARN MORE',
    '  man ic    the manual (every command, option, environment variable and exit code)',
    '',
  ].join('\n');
}

// The first clause of a description, so each command stays on one line.
function firstClause(description: string): string {
  const cut = description.search(/[;(:]/);
  return (cut > 0 ? description.slice(0, cut) : description).trim();
}
