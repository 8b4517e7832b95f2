import type { Deadline } from '../deadline';
import { childProcess } from '../../lazy-builtins';

// Every git process a hook runs: bounded by what is left of the hook's deadline. git may hang where no check
// can foresee it (a core.fsmonitor hook that never answers, a stuck lock or credential helper), so it runs
// in its own process group, and on timeout the whole group is killed: git and whatever it started.

export interface GitOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  input?: Buffer | string;
  maxBuffer?: number;
  /** A file descriptor git's output goes to (streamed, never buffered); the result is then empty. */
  stdout?: number;
}

export function runGit(args: string[], options: GitOptions, deadline: Deadline): Buffer {
  const step = `git ${args.find((arg) => !arg.startsWith('-') && !arg.startsWith('/')) ?? ''}`.trim();
  const left = deadline.leftMs();
  if (left <= 0) throw deadline.exceeded(step);
  const spawnOptions: import('node:child_process').SpawnSyncOptionsWithBufferEncoding & { detached: boolean } = {
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    env: options.env ?? process.env,
    ...(options.input !== undefined ? { input: options.input } : {}),
    maxBuffer: options.maxBuffer ?? 256 * 1024 * 1024,
    stdio: [options.input === undefined ? 'ignore' : 'pipe', options.stdout ?? 'pipe', 'pipe'],
    ...(Number.isFinite(left) ? { timeout: left, killSignal: 'SIGKILL' as const } : {}),
    // Its own process group (setsid; Node's spawnSync honours `detached` as spawn does, though its types
    // omit it), so a timeout can kill what git started too.
    detached: true,
  };
  const result = childProcess().spawnSync('git', args, spawnOptions);
  const error = result.error as NodeJS.ErrnoException | undefined;
  if (error?.code === 'ETIMEDOUT') {
    killGroup(result.pid);
    throw deadline.exceeded(step);
  }
  if (error) {
    killGroup(result.pid); // maxBuffer overrun: git was killed, its children may not be
    throw error;
  }
  if (result.status !== 0) throw commandFailed(args, result.status, result.signal, result.stderr);
  return result.stdout ?? Buffer.alloc(0);
}

export function runGitText(args: string[], options: GitOptions, deadline: Deadline): string {
  return runGit(args, options, deadline).toString('utf8');
}

function killGroup(pid: number | undefined): void {
  if (!pid) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // the group is gone already
  }
}

// The error execFileSync gave (its first line names the command; the callers show that line).
function commandFailed(args: string[], status: number | null, signal: NodeJS.Signals | null, stderr: Buffer): Error {
  return Object.assign(new Error(`Command failed: git ${args.join(' ')}\n${stderr.toString('utf8')}`), { status, signal, stderr });
}
