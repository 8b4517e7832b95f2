import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import type { ClientProcess } from '../store/sessions';

// The agent client process behind a hook or a command, read from /proc (Linux): cheap (one small file per
// ancestor), and no process is started. Elsewhere there is no /proc: no client is identified, and owners
// fall back to what the payload and IC_OWNER say (docs/sessions.md).

// Processes that only pass a command on: the hook's `sh -c`, the agent's shell, git running a hook, the
// hook script itself (named after its file), wrappers. The client is the first ancestor that is none of these.
const PASS_THROUGH = new Set([
  ...['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'fish', 'busybox'], // shells
  ...['env', 'timeout', 'nice', 'nohup', 'stdbuf', 'time', 'xargs'], // wrappers
  ...['git', 'ic', 'coord', 'pre-commit', 'post-commit', 'commit-msg', 'reference-trans'], // git, and hook scripts by their file names
]);
const MAX_DEPTH = 32;

// /proc/<pid>/stat: `pid (comm) state ppid … starttime(22) …`; comm may hold spaces and parentheses.
export function readStat(pid: number): { comm: string; state: string; ppid: number; start: string } | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const close = text.lastIndexOf(')');
  if (close < 0) return undefined;
  const fields = text.slice(close + 2).split(' ');
  return { comm: text.slice(text.indexOf('(') + 1, close), state: fields[0] ?? '', ppid: Number(fields[1]), start: fields[19] ?? '' };
}

// A process's start time (clock ticks since boot), undefined when there is no such process or it has ended
// (a zombie).
export function processStartTime(pid: number): string | undefined {
  const stat = readStat(pid);
  return stat === undefined || stat.state === 'Z' || stat.state === 'X' ? undefined : stat.start;
}

let machine: { host: string; boot: string } | null | undefined;

// The host and pid namespace alone (no boot id): for the fast path, which only trusts a session seen within
// seconds, so a row from before a reboot can never pass for this one.
export function thisHost(): string | undefined {
  try {
    return `${hostname()}/${readlinkSync('/proc/self/ns/pid')}`;
  } catch {
    return undefined;
  }
}

// This host as the kernel sees it: host name and pid namespace (pids mean nothing across either), boot id.
export function thisMachine(): { host: string; boot: string } | undefined {
  if (machine !== undefined) return machine ?? undefined;
  try {
    const ns = readlinkSync('/proc/self/ns/pid');
    machine = { host: `${hostname()}/${ns}`, boot: readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() };
  } catch {
    machine = null;
  }
  return machine ?? undefined;
}

// The ancestors of this process, nearest first (pid 1 and 0 excluded); with `until`, none past the first it
// accepts (a hook runs on every tool call: each /proc read past the one it needs is for nothing).
export function ancestors(from: number = process.ppid, here: { host: string; boot: string } | undefined = thisMachine(), until?: (comm: string) => boolean): (ClientProcess & { comm: string })[] {
  if (!here) return [];
  const chain: (ClientProcess & { comm: string })[] = [];
  for (let pid = from, depth = 0; pid > 1 && depth < MAX_DEPTH; depth++) {
    const stat = readStat(pid);
    if (!stat) break;
    chain.push({ ...here, pid, start: stat.start, comm: stat.comm });
    if (until?.(stat.comm)) break;
    pid = stat.ppid;
  }
  return chain;
}

// The client that ran this hook: the nearest ancestor that is not a shell or wrapper. `here` leaves out the
// boot id for a caller that does not need it (reading it costs the kernel most of a millisecond).
export function hookClient(here: { host: string; boot: string } | undefined = thisMachine()): ClientProcess | undefined {
  const isClient = (comm: string) => !PASS_THROUGH.has(comm);
  const client = ancestors(process.ppid, here, isClient).find((ancestor) => isClient(ancestor.comm));
  return client && { host: client.host, boot: client.boot, pid: client.pid, start: client.start };
}

// The program a process runs, as words to recognise a client by: its executable's path and its first two
// arguments (a script run by node names the client in argv[1]). Empty where /proc does not say.
export function programOf(pid: number): string[] {
  const words: string[] = [];
  try {
    words.push(readlinkSync(`/proc/${pid}/exe`));
  } catch {
    // another user's process, or no /proc: the command line may still say
  }
  try {
    words.push(...readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, 2));
  } catch {
    // gone
  }
  return words.filter((word) => word !== '');
}

// Is the recorded client still running? Only answerable on its own host: elsewhere, the TTL decides.
export function clientState(client: ClientProcess): 'alive' | 'gone' | 'unknown' {
  const here = thisMachine();
  if (!here || here.host !== client.host) return 'unknown';
  if (here.boot !== client.boot) return 'gone';
  return processStartTime(client.pid) === client.start ? 'alive' : 'gone';
}
