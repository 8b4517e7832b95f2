import { isUtf8 } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { IcError } from '../core/errors';
import { checkText, escapeForDisplay } from '../core/names';

// Every argument ic reads follows the text rule of core/names.ts (names, patterns, reasons, consumers,
// paths alike). The command after `--` in `lock NAME -- CMD` is passed on as given, so only its bytes
// are checked: a script may hold newlines, but a string Node has already mangled cannot be passed on.
export function checkArguments(argv: readonly string[], rawArgs: readonly Buffer[] | undefined = readRawArgs()): void {
  for (const arg of argv.slice(0, commandStart(argv))) checkText(arg, 'an argument');
  process.argv.slice(2).forEach((arg, i) => {
    const raw = rawArgs?.[i];
    const invalid = raw !== undefined ? !isUtf8(raw) : arg.includes('\ufffd');
    if (invalid) throw new IcError('INVALID_INPUT', `argument "${escapeForDisplay(arg)}" is not valid UTF-8 (invalid bytes show as U+FFFD); ic takes only UTF-8 text`);
  });
}

// Index of the first argument of CMD in `coord lock NAME … -- CMD`, or the end of argv.
function commandStart(argv: readonly string[]): number {
  const isLock = (argv[0] === 'coordination' || argv[0] === 'coord') && argv[1] === 'lock';
  const dashes = argv.indexOf('--');
  return isLock && dashes >= 0 ? dashes + 1 : argv.length;
}

// Node decodes argv as UTF-8 and turns invalid bytes into U+FFFD, so `x\xff` and `x\xfe` would be one
// name. On Linux the bytes as given are in /proc/self/cmdline; elsewhere (undefined) a U+FFFD in an
// argument is refused, since it may stand for invalid bytes.
function readRawArgs(): Buffer[] | undefined {
  let cmdline: Buffer;
  try {
    cmdline = readFileSync('/proc/self/cmdline');
  } catch {
    return undefined;
  }
  // Each argument ends in a NUL; latin1 maps every byte to one character and back.
  const parts = cmdline.toString('latin1').split('\0').slice(0, -1);
  const userCount = process.argv.length - 2;
  // cmdline is node, its own flags, the script, then the user's arguments: those are the last ones.
  return parts.length >= userCount + 2 ? parts.slice(parts.length - userCount).map((part) => Buffer.from(part, 'latin1')) : undefined;
}
