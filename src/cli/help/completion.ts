import type { Command } from 'commander';
import { IcError } from '../../core/errors';
import { commandsByName, ROOT_COMMANDS } from './groups';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;

interface Tree {
  coordCommands: string[];
  rootWords: string[];
  options: Map<string, string[]>;
}

// What the scripts complete, read from the command tree so they never drift from it.
function treeOf(program: Command): Tree {
  const byName = commandsByName(program);
  const options = new Map<string, string[]>();
  for (const [name, command] of byName) options.set(name, [...command.options.flatMap((o) => (!o.hidden && o.long ? [o.long] : [])), '--help']);
  // Only what `coord` really has (the hidden `ic man` is not one of them).
  const coordination = program.commands.find((command) => command.name() === 'coordination');
  const coordCommands = (coordination?.commands ?? []).map((command) => command.name()).sort();
  for (const name of byName.keys()) if (!coordCommands.includes(name) && !ROOT_COMMANDS.includes(name)) options.delete(name);
  return { coordCommands, rootWords: ['coord', 'coordination', ...ROOT_COMMANDS, 'help', '--version', '--help'], options };
}

function optionCases(tree: Tree, indent: string, end: string): string {
  return [...tree.options].map(([name, flags]) => `${indent}${name}) opts="${flags.join(' ')}" ${end}`).join('\n');
}

// Commands whose arguments are lock IDs; `--pattern` takes a held pattern. Both come from `coord list --active`.
const ID_COMMANDS = ['release', 'renew', 'verify'];
const HELD = `_ic_held() { command ic coord list --active --json 2>/dev/null | grep -o "\\"$1\\":\\"[^\\"]*\\"" | cut -d'"' -f4; }`;

function bash(tree: Tree): string {
  return `# ic completion for bash. Load it with:  source <(ic completion bash)
${HELD}
_ic_complete() {
  local cur=\${COMP_WORDS[COMP_CWORD]} prog=\${COMP_WORDS[0]##*/} sub="" pos=1 opts=""
  if [[ $prog != coord ]]; then
    if (( COMP_CWORD == 1 )); then COMPREPLY=($(compgen -W "${tree.rootWords.join(' ')}" -- "$cur")); return; fi
    case \${COMP_WORDS[1]} in
      coord|coordination) pos=2 ;;
      help) COMPREPLY=($(compgen -W "${[...tree.coordCommands, ...ROOT_COMMANDS].join(' ')}" -- "$cur")); return ;;
      *) sub=\${COMP_WORDS[1]} ;;
    esac
  fi
  if [[ -z $sub ]]; then
    if (( COMP_CWORD == pos )); then COMPREPLY=($(compgen -W "${tree.coordCommands.join(' ')} help" -- "$cur")); return; fi
    sub=\${COMP_WORDS[pos]}
  fi
  case $sub in
${optionCases(tree, '    ', ';;')}
  esac
  if [[ \${COMP_WORDS[COMP_CWORD-1]} == --pattern ]]; then COMPREPLY=($(compgen -W "$(_ic_held pattern)" -- "$cur")); return; fi
  if [[ $cur != -* ]]; then case $sub in ${ID_COMMANDS.join('|')}) COMPREPLY=($(compgen -W "$(_ic_held id)" -- "$cur")); return ;; esac; fi
  if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W "$opts" -- "$cur")); else COMPREPLY=($(compgen -f -- "$cur")); fi
}
complete -o filenames -F _ic_complete ic coord
`;
}

function zsh(tree: Tree): string {
  return `#compdef ic coord
# ic completion for zsh. Save it as _ic in a directory on $fpath:  ic completion zsh > ~/.zfunc/_ic
${HELD}
_ic() {
  local prog=\${words[1]:t} sub="" pos=2 opts=""
  if [[ $prog != coord ]]; then
    if (( CURRENT == 2 )); then compadd -- ${tree.rootWords.join(' ')}; return; fi
    case $words[2] in
      coord|coordination) pos=3 ;;
      help) compadd -- ${[...tree.coordCommands, ...ROOT_COMMANDS].join(' ')}; return ;;
      *) sub=$words[2] ;;
    esac
  fi
  if [[ -z $sub ]]; then
    if (( CURRENT == pos )); then compadd -- ${tree.coordCommands.join(' ')} help; return; fi
    sub=$words[pos]
  fi
  case $sub in
${optionCases(tree, '    ', ';;')}
  esac
  if [[ \${words[CURRENT-1]} == --pattern ]]; then compadd -- \${(f)"$(_ic_held pattern)"}; return; fi
  if [[ $PREFIX != -* ]]; then case $sub in ${ID_COMMANDS.join('|')}) compadd -- \${(f)"$(_ic_held id)"}; return ;; esac; fi
  if [[ $PREFIX == -* ]]; then compadd -- \${=opts}; else _files; fi
}
_ic "$@"
`;
}

function fish(tree: Tree): string {
  const coordList = tree.coordCommands.join(' ');
  const lines = [
    '# ic completion for fish:  ic completion fish > ~/.config/fish/completions/ic.fish',
    `complete -c ic -f -n '__fish_use_subcommand' -a '${tree.rootWords.filter((w) => !w.startsWith('-')).join(' ')}'`,
    `complete -c ic -f -n '__fish_seen_subcommand_from coord coordination help; and not __fish_seen_subcommand_from ${coordList}' -a '${coordList}'`,
    `complete -c coord -f -n 'not __fish_seen_subcommand_from ${coordList}' -a '${coordList} help'`,
  ];
  for (const [name, flags] of tree.options) {
    for (const flag of flags) {
      for (const prog of ROOT_COMMANDS.includes(name) ? ['ic'] : ['ic', 'coord']) lines.push(`complete -c ${prog} -n '__fish_seen_subcommand_from ${name}' -l ${flag.slice(2)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

export function completionScript(program: Command, shell: string): string {
  const tree = treeOf(program);
  if (shell === 'bash') return bash(tree);
  if (shell === 'zsh') return zsh(tree);
  if (shell === 'fish') return fish(tree);
  throw new IcError('USAGE', `no completion for "${shell}": choose bash, zsh or fish`, { hint: 'Try: ic completion bash' });
}
