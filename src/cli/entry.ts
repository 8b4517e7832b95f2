import type { CommanderError } from 'commander';
import { IcError } from '../core/errors';
import { humanText, useColor } from './render';
import { chooseOutput, setOutput } from './format';
import { reportTimingsAtExit } from './timing-report';
import { failure, toIcError, type Reply } from './reply';

// The only writer to stdout: one JSON document when piped or with --json/--format json/IC_FORMAT=json,
// a human summary on a terminal or with --format table.
export function writeReply(reply: Reply, json: boolean): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(reply.json)}\n`);
    // A person reading a pipeline (`coord list | grep x`) still sees why it failed: one line on stderr.
    if (reply.json.ok === false) process.stderr.write(`ic: ${errorLine(reply.json)}\n`);
  } else if (reply.exitCode === 0 || reply.json.ok === true) process.stdout.write(`${humanText(reply.human())}\n`);
  else process.stderr.write(`${humanText(reply.human())}\n`);
  process.exitCode = reply.exitCode;
}

function errorLine(json: Record<string, unknown>): string {
  const message = (json.error as { message?: unknown } | undefined)?.message;
  return typeof message === 'string' ? (message.split('\n')[0] ?? '') : 'failed';
}

// A closed pipe (e.g. `coord list | head -1`) ends the program quietly.
function ignoreBrokenPipe(): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

export async function run(argv: string[]): Promise<void> {
  if (process.listenerCount('SIGUSR1') === 0) process.on('SIGUSR1', () => {}); // no inspector (as bin/ does)
  ignoreBrokenPipe();
  if (process.env.IC_TIMING === '1') reportTimingsAtExit();
  (require('../hooks/run') as typeof import('../hooks/run')).registerWorktreeInstaller((cwd, env) =>
    (require('../hooks/install/worktree') as typeof import('../hooks/install/worktree')).installInWorktree(cwd, env),
  );
  const hookCall = require('./hook-call') as typeof import('./hook-call');
  if (hookCall.isBareHookCall(argv)) return hookCall.runHookCall(argv[2]!);
  let json = !process.stdout.isTTY;
  try {
    const output = chooseOutput(argv, process.env, Boolean(process.stdout.isTTY));
    json = output.format === 'json';
    useColor(output.color);
    setOutput(output);
  } catch (error) {
    return writeReply(failure(toIcError(error)), json);
  }
  if (!workingDirectoryExists()) {
    const hint = 'cd into your project (the directory you were in was deleted or cannot be read) and run the command again';
    return writeReply(failure(new IcError('DB_UNAVAILABLE', `the current directory no longer exists, so ic cannot tell which project it is in; ${hint}`, { hint })), json);
  }
  // Loaded here, not at the top: the hook fast path above never pays for commander and the command tree.
  const { buildProgram } = require('./program') as typeof import('./program');
  let replied = false;
  const emit = (reply: Reply) => {
    replied = true;
    writeReply(reply, json);
  };
  try {
    const { checkArguments } = require('./argv-text') as typeof import('./argv-text');
    checkArguments(argv);
    const { rewriteHelpArgs } = require('./help/args') as typeof import('./help/args');
    await buildProgram(emit).parseAsync(rewriteHelpArgs(argv), { from: 'user' });
  } catch (error) {
    if (replied) return;
    reportError(error, json);
  }
}

function reportError(error: unknown, json: boolean): void {
  if (isCommanderError(error)) {
    const { fromCommanderError } = require('./program') as typeof import('./program');
    const translated = fromCommanderError(error);
    if (translated === 'exit-0') process.exitCode = 0;
    else writeReply(failure(translated), json);
    return;
  }
  const icError = toIcError(error);
  if (process.env.IC_DEBUG && error instanceof Error) process.stderr.write(`${error.stack ?? error.message}\n`);
  if (icError.code === 'INTERNAL' && !(error instanceof IcError) && error instanceof Error && !process.env.IC_DEBUG) {
    process.stderr.write(`ic: ${error.message}\n`);
  }
  writeReply(failure(icError), json);
}

function isCommanderError(error: unknown): error is CommanderError {
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof Error && typeof code === 'string' && code.startsWith('commander.');
}

// Every command finds its project from the working directory; Node throws (ENOENT, EACCES) once it is gone.
function workingDirectoryExists(): boolean {
  try {
    process.cwd();
    return true;
  } catch {
    return false;
  }
}
