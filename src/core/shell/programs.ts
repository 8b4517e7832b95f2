// The programs whose arguments the shell reader (./verbs.ts) reads for files they write: one list, which
// the reader consults before anything else, so that the quick scan below can never miss a name it reads.
const READ_PROGRAMS = new Set([
  // wrappers that run the rest of their arguments (./verbs.ts, WRAPPERS)
  ...['sudo', 'env', 'nice', 'nohup', 'time', 'timeout', 'stdbuf', 'command', 'builtin', 'exec', 'doas', 'ionice', 'chrt', 'npx'],
  // writing programs
  ...['eval', 'xargs', 'parallel', 'tee', 'sed', 'gsed', 'awk', 'gawk', 'perl', 'cp', 'mv', 'install', 'ln', 'rsync', 'rm', 'unlink', 'shred'],
  ...['rmdir', 'truncate', 'touch', 'dd', 'patch', 'git', 'apply_patch', 'applypatch', 'chmod', 'chown', 'chgrp', 'sort', 'find'],
  // shells (a script given with -c) and interpreters of one-line scripts (./inline-code.ts)
  ...['bash', 'sh', 'zsh', 'dash', 'ksh', 'node', 'nodejs', 'bun', 'deno'],
]);

const PYTHON = /^python[0-9.]*$/;

export function isReadProgram(program: string): boolean {
  return READ_PROGRAMS.has(program) || PYTHON.test(program);
}

// Whether the shell reader could name a file this command writes. False only when it surely cannot: no
// redirection, no quoting that spells words in other ways ($'…', $"…"), no backquote, and no word (quotes
// and backslashes removed, split at every operator) that is, or ends in /, a program the reader reads.
// Over-eager by design (`grep rm notes.txt` says true): true only costs the reader's load (issue #19).
export function mayWriteVisibly(command: string): boolean {
  if (/[>`]|\$['"]/.test(command)) return true;
  const flat = command.replace(/\\\r?\n/g, '').replace(/['"\\]/g, '');
  for (const word of flat.split(/[\s;&|()<>{}$,]+/)) {
    if (word !== '' && isReadProgram(word.slice(word.lastIndexOf('/') + 1))) return true;
  }
  return false;
}
