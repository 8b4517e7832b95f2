import { IcError } from '../../core/errors';
import { GROUPS, ROOT_COMMANDS } from './groups';

const COORD_COMMANDS = GROUPS.flatMap((group) => group.commands).filter((name) => !ROOT_COMMANDS.includes(name));
const COORD_WORDS = ['coordination', 'coord'];
// Commands that exist but are not listed (`ic man`): left to commander.
const HIDDEN_ROOT = ['man'];

function helpFor(name: string): string[] {
  if (COORD_COMMANDS.includes(name)) return ['coordination', name, '--help'];
  if (ROOT_COMMANDS.includes(name)) return [name, '--help'];
  throw new IcError('USAGE', `there is no command named "${name}"`, { hint: 'Try: ic --help' });
}

// A command spelt in the wrong place: `ic reserve …` (a coord command) or `coord doctor` (an ic one).
function misplaced(name: string, inCoord: boolean): IcError | undefined {
  if (!inCoord && COORD_COMMANDS.includes(name)) return new IcError('USAGE', `"${name}" is a coord command: ic coord ${name} (or coord ${name})`, { hint: `Try: ic coord ${name} --help` });
  if (inCoord && ROOT_COMMANDS.includes(name)) return new IcError('USAGE', `"${name}" is an ic command, not a coord one: ic ${name}`, { hint: `Try: ic ${name} --help` });
  return undefined;
}

// `ic help reserve`, `ic help coord reserve`, `coord help reserve`, `ic reserve --help`, `coord doctor --help`
// and `ic -V` are spelt for commander (`coordination reserve --help`); a command typed in the wrong place
// without --help is a usage error that names the right spelling.
export function rewriteHelpArgs(argv: string[]): string[] {
  if (argv.length === 1 && argv[0] === '-V') return ['--version'];
  const inCoord = argv.length > 0 && COORD_WORDS.includes(argv[0]!);
  const rest = inCoord ? argv.slice(1) : argv;
  const first = rest[0];
  if (first !== undefined && first !== 'help' && !first.startsWith('-')) {
    const end = rest.indexOf('--');
    const own = end === -1 ? rest : rest.slice(0, end);
    const asksHelp = own.includes('--help') || own.includes('-h');
    const wrong = misplaced(first, inCoord);
    if (asksHelp && (wrong || !(inCoord ? COORD_COMMANDS : [...ROOT_COMMANDS, ...HIDDEN_ROOT, ...COORD_WORDS]).includes(first))) return helpFor(first);
    if (wrong && !HIDDEN_ROOT.includes(first)) throw wrong;
    return argv;
  }
  if (first !== 'help') return argv;
  const words = rest.slice(1).filter((word) => !word.startsWith('-'));
  const topic = words.length > 1 && COORD_WORDS.includes(words[0]!) ? words.slice(1) : words;
  if (topic.length === 0) return inCoord ? ['coordination', '--help'] : ['--help'];
  const name = topic[0]!;
  if (COORD_WORDS.includes(name)) return ['coordination', '--help'];
  if (name === 'help') return ['--help'];
  return helpFor(name);
}
