import type { Word } from './lex';

// getopt-style reading of one command's arguments: which options it has, their values, and the operands.
export interface ArgSpec {
  /** Short option letters that take a value (attached, or the next word). */
  short?: string;
  /** Short option letters whose value can only be attached (`sed -i.bak`, `perl -i`). */
  attached?: string;
  /** Long options that take a value (`--target-directory`), written without the dashes. */
  long?: readonly string[];
}

export interface Args {
  /** Every option seen, as `-x` or `--name`. */
  flags: Set<string>;
  /** The values of options that take one, in order. */
  values: Map<string, string[]>;
  operands: Word[];
  /** Some option was not literal (`-$x`): what it means is unknown. */
  opaque: boolean;
}

export function parseArgs(args: readonly Word[], spec: ArgSpec = {}): Args {
  const result: Args = { flags: new Set(), values: new Map(), operands: [], opaque: false };
  const setValue = (flag: string, value: string | undefined) => {
    result.flags.add(flag);
    if (value !== undefined) result.values.set(flag, [...(result.values.get(flag) ?? []), value]);
  };
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    const text = word.value;
    if (text === undefined) {
      if (word.pattern.startsWith('-')) result.opaque = true;
      else result.operands.push(word);
      continue;
    }
    if (text === '--') {
      result.operands.push(...args.slice(i + 1));
      break;
    }
    if (text.startsWith('--')) {
      const eq = text.indexOf('=');
      const name = text.slice(2, eq === -1 ? undefined : eq);
      if (eq !== -1) setValue(`--${name}`, text.slice(eq + 1));
      else if (spec.long?.includes(name)) setValue(`--${name}`, args[++i]?.value ?? '');
      else result.flags.add(`--${name}`);
      continue;
    }
    if (text.startsWith('-') && text.length > 1) {
      for (let j = 1; j < text.length; j++) {
        const letter = text[j]!;
        if (spec.attached?.includes(letter)) {
          setValue(`-${letter}`, text.slice(j + 1));
          break;
        }
        if (spec.short?.includes(letter)) {
          const rest = text.slice(j + 1);
          setValue(`-${letter}`, rest !== '' ? rest : (args[++i]?.value ?? ''));
          break;
        }
        result.flags.add(`-${letter}`);
      }
      continue;
    }
    result.operands.push(word);
  }
  return result;
}

export function has(args: Args, ...flags: string[]): boolean {
  return flags.some((flag) => args.flags.has(flag));
}

export function value(args: Args, ...flags: string[]): string | undefined {
  for (const flag of flags) {
    const values = args.values.get(flag);
    if (values !== undefined && values.length > 0) return values[values.length - 1];
  }
  return undefined;
}
