import { IcError } from '../core/errors';

export type Format = 'table' | 'json';

export interface OutputChoice {
  format: Format;
  /** ANSI colour in tables: only on a terminal, never with NO_COLOR (https://no-color.org). */
  color: boolean;
}

// The words of argv that are ic's own: after `--` comes the command of `coord lock NAME -- CMD`.
function ownWords(argv: string[]): string[] {
  const end = argv.indexOf('--');
  return end === -1 ? argv : argv.slice(0, end);
}

function flagValue(words: string[], flag: string): string | undefined {
  let value: string | undefined;
  words.forEach((word, i) => {
    if (word === flag) value = words[i + 1] ?? '';
    else if (word.startsWith(`${flag}=`)) value = word.slice(flag.length + 1);
  });
  return value;
}

function checkFormat(value: string, where: string): Format {
  if (value === 'table' || value === 'json') return value;
  throw new IcError('USAGE', value === '' ? `${where} needs a value: table or json` : `${where} must be table or json, got "${value}"`, { hint: 'Try: --format table' });
}

// A flag beats the environment, which beats the default: JSON on a pipe, a table on a terminal.
export function chooseOutput(argv: string[], env: NodeJS.ProcessEnv, stdoutIsTty: boolean): OutputChoice {
  const words = ownWords(argv);
  const flag = flagValue(words, '--format');
  let format: Format;
  if (words.includes('--json')) format = 'json';
  else if (flag !== undefined) format = checkFormat(flag, '--format');
  else if (env.IC_FORMAT !== undefined && env.IC_FORMAT !== '') format = checkFormat(env.IC_FORMAT, 'IC_FORMAT');
  else format = stdoutIsTty ? 'table' : 'json';
  const color = wantsColor(flagValue(words, '--color'), env, stdoutIsTty); // a bad --color is refused in JSON mode too
  return { format, color: format === 'table' && color };
}

const set = (value: string | undefined) => value !== undefined && value !== '';

// --color beats the environment; NO_COLOR (https://no-color.org) beats FORCE_COLOR and CLICOLOR_FORCE
// (either, unless "0" or "false", forces colour off a terminal); else colour on a terminal that is not dumb.
export function wantsColor(flag: string | undefined, env: NodeJS.ProcessEnv, stdoutIsTty: boolean): boolean {
  if (flag === 'always') return true;
  if (flag === 'never') return false;
  if (flag !== undefined && flag !== 'auto') throw new IcError('USAGE', `--color must be auto, always or never, got "${flag}"`, { hint: 'Try: --color=always' });
  if (set(env.NO_COLOR)) return false;
  const forced = [env.FORCE_COLOR, env.CLICOLOR_FORCE].some((value) => set(value) && value !== '0' && value !== 'false');
  if (forced) return true;
  return stdoutIsTty && env.TERM !== 'dumb';
}

let chosen: OutputChoice = { format: 'json', color: false };

// Set once per process by entry.ts; read by the commands that stream (events --follow) or pick a view.
export function setOutput(choice: OutputChoice): void {
  chosen = choice;
}

export function currentOutput(): OutputChoice {
  return chosen;
}
