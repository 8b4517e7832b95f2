import { IcError } from '../../core/errors';
import { GROUPS, ROOT_COMMANDS } from './groups';

const COORD_COMMANDS = GROUPS.flatMap((group) => group.commands).filter((name) => !ROOT_COMMANDS.includes(name));
const COORD_WORDS = ['coordination', 'coord'];

// `ic help reserve`, `coord help reserve` and `ic -V` are spelt for commander: `coordination reserve --help`.
export function rewriteHelpArgs(argv: string[]): string[] {
  if (argv.length === 1 && argv[0] === '-V') return ['--version'];
  const inCoord = argv.length > 0 && COORD_WORDS.includes(argv[0]!);
  const rest = inCoord ? argv.slice(1) : argv;
  if (rest[0] !== 'help') return argv;
  const topic = rest.slice(1).filter((word) => !word.startsWith('-'));
  if (topic.length === 0) return inCoord ? ['coordination', '--help'] : ['--help'];
  const name = topic[0]!;
  if (COORD_WORDS.includes(name)) return ['coordination', '--help'];
  if (name === 'help') return ['--help'];
  if (COORD_COMMANDS.includes(name)) return ['coordination', name, '--help'];
  if (ROOT_COMMANDS.includes(name)) return [name, '--help'];
  throw new IcError('USAGE', `there is no command named "${name}"`, { hint: 'Try: ic --help' });
}
