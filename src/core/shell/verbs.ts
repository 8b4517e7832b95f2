import { isAbsolute } from 'node:path';
import { type ArgSpec, has, parseArgs, value } from './args';
import { gitWrites } from './git';
import type { Word } from './lex';
import { readInlineCode } from './inline-code';
import { patchTargets } from './patch-files';
import { isReadProgram } from './programs';
import { addDestination, addPath, addTree, addWordTarget, resolveDir, unreadable, type VerbContext } from './targets';

// Programs that run the rest of their arguments as a command: stripped, with their own options.
const WRAPPERS: Record<string, { short?: string; long?: readonly string[]; skipOperands?: number; assignments?: boolean }> = {
  sudo: { short: 'ugCDhpRrTU', long: ['user', 'group', 'host', 'prompt', 'chdir', 'close-from', 'role', 'type', 'other-user'] },
  env: { short: 'uCS', long: ['unset', 'chdir', 'split-string'], assignments: true },
  nice: { short: 'n', long: ['adjustment'] },
  nohup: {},
  time: { short: 'fo', long: ['format', 'output'] },
  timeout: { short: 'sk', long: ['signal', 'kill-after'], skipOperands: 1 },
  stdbuf: { short: 'ioe', long: ['input', 'output', 'error'] },
  command: {},
  builtin: {},
  exec: { short: 'a' },
  doas: { short: 'uC' },
  ionice: { short: 'cnpt' },
  chrt: {},
  npx: { short: 'pc', long: ['package', 'call'] },
};

const SHELLS = new Set(['bash', 'sh', 'zsh', 'dash', 'ksh']);

// Programs whose every operand is a file they write, with the options that take a value.
const FILE_OPERANDS: Record<string, ArgSpec> = {
  tee: { long: ['output-error'] },
  truncate: { short: 'sr', long: ['size', 'reference'] },
  touch: { short: 'drt', long: ['date', 'reference', 'time'] },
};

export function readVerb(argv: readonly Word[], context: VerbContext): void {
  const name = argv[0]?.value;
  if (name === undefined) return unreadable(context.sink, `a program ic cannot read before it runs: ${JSON.stringify(argv[0]?.pattern ?? '')}`);
  const program = name.slice(name.lastIndexOf('/') + 1);
  if (!isReadProgram(program)) return; // the one list of what is read here (./programs.ts, which the quick scan trusts)
  const args = argv.slice(1);
  const wrapper = WRAPPERS[program];
  if (wrapper) return readVerb(unwrap(args, wrapper), context);
  const { sink, cwd, disk } = context;
  const fileOperands = FILE_OPERANDS[program];
  if (fileOperands) {
    for (const word of parseArgs(args, fileOperands).operands) addWordTarget(sink, word, cwd, disk);
    return;
  }
  switch (program) {
    case 'eval':
      if (args.length > 0) sink.unreadable.push('eval');
      return;
    case 'xargs':
    case 'parallel':
      if (args.some((word) => word.value !== undefined && WRITERS.has(word.value))) sink.unreadable.push(`${program} runs a writing command on arguments ic cannot see`);
      return;
    case 'sed':
    case 'gsed': {
      const parsed = parseArgs(args, { short: 'efl', attached: 'i', long: ['expression', 'file', 'line-length'] });
      if (!has(parsed, '-i', '--in-place')) return;
      // BSD's `sed -i '' 's/a/b/' f`: the empty word is -i's suffix, not the script
      const operands = parsed.operands[0]?.value === '' && value(parsed, '-i') === '' ? parsed.operands.slice(1) : parsed.operands;
      const files = has(parsed, '-e', '-f', '--expression', '--file') ? operands : operands.slice(1);
      for (const word of files) addWordTarget(sink, word, cwd, disk);
      return;
    }
    case 'awk':
    case 'gawk': {
      const parsed = parseArgs(args, { short: 'ifvFlE', long: ['include', 'file', 'assign', 'field-separator', 'load'] });
      if (!(parsed.values.get('-i') ?? parsed.values.get('--include') ?? []).includes('inplace')) return;
      const files = has(parsed, '-f', '--file', '-E') ? parsed.operands : parsed.operands.slice(1);
      for (const word of files) if (!(word.value ?? '').includes('=')) addWordTarget(sink, word, cwd, disk);
      return;
    }
    case 'perl': {
      const parsed = parseArgs(splitPerlRecordFlags(args), { short: 'eEIMmCxd', attached: 'i0l' });
      if (!has(parsed, '-i')) return;
      const files = has(parsed, '-e', '-E') ? parsed.operands : parsed.operands.slice(1);
      for (const word of files) addWordTarget(sink, word, cwd, disk);
      return;
    }
    case 'cp':
    case 'mv':
    case 'install':
    case 'ln':
      return copyLike(program, args, context);
    case 'rsync': {
      const parsed = parseArgs(args, {
        short: 'efBTM',
        long: [
          'rsh',
          'filter',
          'exclude',
          'include',
          'exclude-from',
          'include-from',
          'files-from',
          'temp-dir',
          'partial-dir',
          'backup-dir',
          'suffix',
          'rsync-path',
          'chmod',
          'chown',
          'log-file',
          'compare-dest',
          'copy-dest',
          'link-dest',
        ],
      });
      const dest = parsed.operands[parsed.operands.length - 1];
      if (parsed.operands.length < 2 || dest === undefined) return;
      if (dest.value !== undefined && /^[^/]*:/.test(dest.value)) return; // host:path, a remote destination
      if (dest.value === undefined) addWordTarget(sink, dest, cwd, disk);
      else addTree(sink, resolveDir(dest.value, cwd), false);
      return;
    }
    case 'rm':
    case 'unlink':
    case 'shred': {
      const parsed = parseArgs(args, { short: program === 'shred' ? 'nsu' : '', long: ['interactive', 'preserve-root', 'iterations', 'size', 'random-source'] });
      const recursive = has(parsed, '-r', '-R', '--recursive');
      for (const word of parsed.operands) addWordTarget(sink, word, cwd, disk, { tree: recursive });
      return;
    }
    case 'dd':
      for (const word of args) {
        if (word.value?.startsWith('of=')) addPath(sink, word.value.slice(3), cwd, disk);
        else if (word.value === undefined && word.pattern.startsWith('of=')) sink.unreadable.push(`a target ic cannot read before it runs: ${JSON.stringify(word.pattern)}`);
      }
      return;
    case 'patch':
      return readPatchCommand(args, context);
    case 'git':
      return gitWrites(args, context);
    case 'apply_patch':
    case 'applypatch': {
      // Codex's own patch tool through its shell: the envelope as the argument or on stdin
      const text = args[0]?.value ?? context.stdin;
      if (text === undefined) sink.unreadable.push('a patch ic cannot read before it runs');
      else patchTargets(sink, text, cwd, disk, 0);
      return;
    }
    case 'rmdir':
    case 'chmod':
    case 'chown':
    case 'chgrp':
      return;
    case 'sort': {
      const parsed = parseArgs(args, {
        short: 'oktST',
        long: ['output', 'key', 'field-separator', 'buffer-size', 'temporary-directory', 'compress-program', 'files0-from', 'parallel', 'batch-size', 'sort', 'random-source'],
      });
      const output = value(parsed, '-o', '--output');
      if (output !== undefined) addPath(sink, output, cwd, disk);
      return;
    }
    case 'find':
      return readFind(args, context);
  }
  if (SHELLS.has(program)) readShell(args, context);
  else readInlineCode(program, args, sink, cwd, disk);
}

// The programs whose file arguments are writes: a hint that `xargs PROGRAM` writes files ic cannot name.
const WRITERS = new Set(['rm', 'mv', 'cp', 'sed', 'perl', 'tee', 'truncate', 'touch', 'install', 'ln', 'shred', 'patch', 'git', 'dd']);

function unwrap(args: readonly Word[], wrapper: (typeof WRAPPERS)[string]): Word[] {
  let i = 0;
  while (i < args.length) {
    const text = args[i]!.value;
    if (text === undefined) break;
    if (text === '--') {
      i++;
      break;
    }
    if (text.startsWith('-') && text.length > 1) {
      const letter = text[1];
      const long = text.startsWith('--') && !text.includes('=') && wrapper.long?.includes(text.slice(2));
      const short = !text.startsWith('--') && text.length === 2 && letter !== undefined && wrapper.short?.includes(letter);
      i += long || short ? 2 : 1;
      continue;
    }
    if (wrapper.assignments && /^[A-Za-z_][A-Za-z0-9_]*=/.test(text)) {
      i++;
      continue;
    }
    break;
  }
  return args.slice(i + (wrapper.skipOperands ?? 0));
}

// bash -c 'script' (and -lc, -ec, -xc …): the script is read like the command line itself.
function readShell(args: readonly Word[], context: VerbContext): void {
  for (let i = 0; i < args.length; i++) {
    const text = args[i]!.value;
    if (text === undefined) return;
    if (text === '-o' || text === '+o' || text === '-O' || text === '+O') {
      i++;
      continue;
    }
    if (/^-[A-Za-z]*c[A-Za-z]*$/.test(text)) {
      const script = args[i + 1];
      if (script === undefined) return;
      if (script.value === undefined) context.sink.unreadable.push('a shell -c script ic cannot read before it runs');
      else context.nested(script.value, context.cwd);
      return;
    }
    if (!text.startsWith('-') && !text.startsWith('+')) return; // `bash script.sh`: a script file, not read
  }
  if (context.stdin !== undefined) context.nested(context.stdin, context.cwd); // bash <<'EOF' … EOF
}

// cp/mv/install/ln: the destination (and for mv the sources, which disappear); -t DIR names the directory.
function copyLike(program: string, args: readonly Word[], context: VerbContext): void {
  const { sink, cwd, disk } = context;
  const parsed = parseArgs(args, {
    short: program === 'install' ? 'tgmoS' : 'tS',
    long: ['target-directory', 'suffix', 'backup', 'owner', 'group', 'mode', 'strip-program', 'context', 'sparse', 'reflink', 'preserve', 'no-preserve'],
  });
  if (program === 'install' && has(parsed, '-d', '--directory')) return;
  const targetDir = value(parsed, '-t', '--target-directory');
  const noTargetDir = has(parsed, '-T', '--no-target-directory');
  if (targetDir !== undefined) {
    if (targetDir === '') return unreadable(sink, 'a -t directory ic cannot read before it runs');
    const dirWord: Word = { kind: 'word', value: targetDir, pattern: targetDir, glob: false, quoted: true };
    addDestination(sink, dirWord, parsed.operands, cwd, disk, true);
  } else if (parsed.operands.length >= 2 || (program === 'ln' && parsed.operands.length === 1)) {
    const sources = parsed.operands.length === 1 ? parsed.operands : parsed.operands.slice(0, -1);
    const dest: Word = parsed.operands.length === 1 ? { kind: 'word', value: '.', pattern: '.', glob: false, quoted: false } : parsed.operands[parsed.operands.length - 1]!;
    if (noTargetDir) addWordTarget(sink, dest, cwd, disk, { tree: true });
    else addDestination(sink, dest, sources, cwd, disk, false);
  }
  if (program === 'mv') {
    const sources = targetDir !== undefined ? parsed.operands : parsed.operands.slice(0, -1);
    for (const word of sources) addWordTarget(sink, word, cwd, disk, { tree: true });
  }
}

// find's starting points (the words before its first expression word): `-delete`, or `-exec`/`-execdir`
// of a writing program, may change anything below them.
function readFind(args: readonly Word[], context: VerbContext): void {
  const first = args.findIndex((word) => word.value === undefined || /^[-(!]/.test(word.value));
  const starts = first === -1 ? args : args.slice(0, first);
  const expression = first === -1 ? [] : args.slice(first);
  const writes = expression.some((word, i) => word.value === '-delete' || ((word.value === '-exec' || word.value === '-execdir') && WRITERS.has(expression[i + 1]?.value ?? '')));
  if (!writes) return;
  if (starts.length === 0) addTree(context.sink, context.cwd, false);
  for (const word of starts) {
    if (word.value === undefined) context.sink.unreadable.push(`a find starting point ic cannot read before it runs: ${JSON.stringify(word.pattern)}`);
    else addTree(context.sink, resolveDir(word.value, context.cwd), false);
  }
}

// patch [-pN] [-i PATCHFILE] [-o OUT] [ORIGFILE [PATCHFILE]], the patch from -i, a file, or stdin.
function readPatchCommand(args: readonly Word[], context: VerbContext): void {
  const { sink, cwd, disk } = context;
  const parsed = parseArgs(args, {
    short: 'pidoBDFrVYzg',
    long: ['strip', 'input', 'directory', 'output', 'prefix', 'define', 'fuzz', 'reject-file', 'version-control', 'basename-prefix', 'suffix', 'get', 'quoting-style'],
  });
  if (has(parsed, '--dry-run')) return;
  const output = value(parsed, '-o', '--output');
  if (output !== undefined) return addPath(sink, output, cwd, disk);
  const [original, patchFile] = parsed.operands;
  if (original !== undefined) return addWordTarget(sink, original, cwd, disk);
  const dir = value(parsed, '-d', '--directory');
  const base = dir === undefined ? cwd : resolveDir(dir, cwd);
  const strip = value(parsed, '-p', '--strip');
  const input = value(parsed, '-i', '--input') ?? patchFile?.value;
  const text = input !== undefined ? (cwd === undefined && !isAbsolute(input) ? undefined : disk.readFile(resolveDir(input, cwd) ?? input)) : context.stdin;
  if (text === undefined) return unreadable(sink, 'a patch ic cannot read before it runs');
  patchTargets(sink, text, base, disk, strip === undefined ? undefined : Number(strip));
}

// perl's -0 and -l take only digits (`-0777`, `-0x1F`, `-l015`), so in `-0pi` or `-lpi` the letters after
// them are more switches (-p, -i), not -0's value: split them off before the clusters are read.
function splitPerlRecordFlags(args: readonly Word[]): Word[] {
  return args.flatMap((word) => {
    const match = /^-(0(?:x[0-9a-fA-F]*|[0-7]*)|l[0-7]*)([A-Za-z].*)$/.exec(word.value ?? '');
    return match
      ? [
          { ...word, value: `-${match[1]}`, pattern: `-${match[1]}` },
          { ...word, value: `-${match[2]}`, pattern: `-${match[2]}` },
        ]
      : [word];
  });
}
