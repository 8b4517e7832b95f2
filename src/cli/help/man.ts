import type { Command } from 'commander';
import { EXAMPLES } from './examples';
import { commandsByName, GROUPS, invocation } from './groups';
import { clientList } from '../../hooks/install/clients';

// roff needs its own escapes: a backslash, and a leading dot or quote that would read as a request.
function roff(text: string): string {
  return text
    .replace(/\\/g, '\\e')
    .replace(/-/g, '\\-')
    .replace(/^([.'])/gm, '\\&$1');
}

const ENVIRONMENT: [string, string][] = [
  ['IC_OWNER', 'who acts when --owner is not given'],
  ['IC_DB', 'the database file, or a postgres:// URL (--db beats it)'],
  ['IC_FORMAT', 'table or json: the output format when --format and --json are not given'],
  ['NO_COLOR', 'when set and not empty, tables are never coloured'],
  ['IC_LOCK_DELAY', 'how long a lapsed lock still binds others (default 60s, 0 turns it off)'],
  ['IC_BUSY_TIMEOUT', 'how long a call waits for the database write lock'],
  ['IC_TIMING', '1 prints the write-lock wait and hold times on stderr'],
  ['IC_DEBUG', '1 prints stack traces of internal errors on stderr'],
];

const EXIT_CODES: [string, string][] = [
  ['0', 'done'],
  ['1', 'no: CONFLICT, NOT_FOUND, NOT_OWNER, TIMEOUT (and check/verify when the answer is no)'],
  ['64', 'USAGE: a bad command line'],
  ['65', 'bad input: INVALID_PATTERN, TOO_COMPLEX, OUTSIDE_SCOPE, INVALID_INPUT'],
  ['69', 'DB_UNAVAILABLE'],
  ['70', 'INTERNAL'],
  ['75', 'BUSY (and coord lock NAME -- CMD when the lock could not be had)'],
];

// Said once, under OPTIONS OF EVERY COMMAND, rather than under each command.
const COMMON = ['--db', '--scope', '--json', '--format', '--color'];

function commandSection(name: string, command: Command): string[] {
  const lines = ['.SS ' + roff(`${invocation(name)} ${command.usage()}`), roff(command.description())];
  for (const option of command.options.filter((o) => !o.hidden && !COMMON.includes(o.long ?? ''))) lines.push('.TP', `.B ${roff(option.flags)}`, roff(option.description));
  for (const example of EXAMPLES[name]?.examples ?? []) lines.push('.PP', roff(example.says) + ':', '.RS', '.EX', roff(example.run), '.EE', '.RE');
  return lines;
}

// The manual page, ic(1), from the same tree and examples as --help (scripts/man.mjs writes man/ic.1).
export function manPage(program: Command, version: string): string {
  const byName = commandsByName(program);
  const lines = [
    `.TH IC 1 "" "ic ${version}" "User Commands"`,
    '.SH NAME',
    'ic, coord \\- coordinate AI coding agents (and people) working in one git repository',
    '.SH SYNOPSIS',
    '.B coord',
    '.I command',
    '[options]',
    '.br',
    '.B ic',
    '.RB [ coord | init | doctor | config | whoami | completion | help ]',
    '[options]',
    '.SH DESCRIPTION',
    roff(
      'ic keeps agents from editing the same files, running the tests over each other or taking the same task: exclusive and shared glob reservations, named locks and work-item claims, decided in one database per repository: a SQLite file in its git directory by default, or a PostgreSQL server shared by agents on several machines (ic init --db postgresql://…). There is no daemon; every call opens the database, decides in one transaction and exits. On a terminal the answer is a table, on a pipe one JSON document.',
    ),
    '.PP',
    roff(`Get started: cd into your repository and run ic coord install (hooks for the agents found there: ${clientList()}; and the git guard); coord list --active shows who holds what.`),
  ];
  lines.push('.SH OPTIONS OF EVERY COMMAND');
  for (const option of byName.get('list')!.options.filter((o) => COMMON.includes(o.long ?? ''))) lines.push('.TP', `.B ${roff(option.flags)}`, roff(option.description));
  for (const group of GROUPS) {
    lines.push(`.SH ${roff(group.title.toUpperCase())}`);
    for (const name of group.commands) {
      const command = byName.get(name);
      if (command) lines.push(...commandSection(name, command));
    }
  }
  lines.push('.SH ENVIRONMENT');
  for (const [name, meaning] of ENVIRONMENT) lines.push('.TP', `.B ${name}`, roff(meaning));
  lines.push('.SH EXIT STATUS');
  for (const [code, meaning] of EXIT_CODES) lines.push('.TP', `.B ${code}`, roff(meaning));
  lines.push('.SH SEE ALSO', roff('The README and docs/ of the ic package: concepts, patterns, guarantees, performance.'));
  return `${lines.join('\n')}\n`;
}
