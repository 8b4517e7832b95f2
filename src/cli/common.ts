import { Command, Option } from 'commander';
import type { Conflict } from '../core/conflict';
import { viewLock } from '../core/lock';
import { validateOwner } from '../core/owner';
import { shellQuote } from '../core/shell';
import { explainActingOwner, releaseDeadClients, type ActingOwner } from '../coord/sessions';
import { clockTime, relativeTime, whenText } from './render';
import { clockFromEnv, createContext, lockDelayFromEnv, resolveProject, resolveWorkspace, type CoordContext, type Project, type Workspace } from '../coord/context';
import { describeRunConflict, isRunLock } from './run-lease-text';

export interface CommonOptions {
  db?: string;
  scope?: string;
  json?: boolean;
  format?: string;
  color?: string;
  owner?: string;
}

// A command with the flags every one takes: --db, --scope, --json, --format, --color (docs/reference.md, "Common flags").
export function commonCommand(name: string, description: string): Command {
  return new Command(name)
    .description(description)
    .option('--db <path>', 'database file or postgres:// URL; beats $IC_DB (default: <git common dir>/ic/ic.db in a git repository, else <root>/.ic/ic.db)')
    .option('--scope <dir>', 'scope directory (default: the git work tree root)')
    .option('--json', 'print JSON even on a terminal (same as --format json)')
    .option('--format <table|json>', 'table or json (default: $IC_FORMAT, else a table on a terminal and JSON on a pipe)')
    .option('--color <when>', 'colour in tables: auto, always or never (default auto: a terminal, unless NO_COLOR; FORCE_COLOR or CLICOLOR_FORCE force it)');
}

export function ownerOption(): Option {
  return new Option('--owner <name>', 'who acts (default: $IC_OWNER)');
}

export async function resolveOwner(options: CommonOptions, env: NodeJS.ProcessEnv): Promise<string> {
  return validateOwner((await explainOwner(options, env)).owner);
}

export async function optionalOwner(options: CommonOptions, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const owner = (await explainOwner(options, env)).owner;
  return owner === undefined || owner === '' ? undefined : validateOwner(owner);
}

// Who this process acts as and why (`ic whoami`): --owner, else the live agent session this command runs in
// (found through its parent processes), else $IC_OWNER (docs/sessions.md, "Identity"). A database that
// cannot be read leaves it to $IC_OWNER.
export async function explainOwner(options: CommonOptions, env: NodeJS.ProcessEnv): Promise<ActingOwner | { owner: string; source: 'flag' }> {
  if (options.owner !== undefined) return { owner: options.owner, source: 'flag' };
  try {
    const ctx = await createContext({ cwd: process.cwd(), env, dbFlag: options.db, scopeFlag: options.scope, write: false });
    try {
      return await explainActingOwner(ctx, env.IC_OWNER);
    } finally {
      ctx.db.close();
    }
  } catch {
    return env.IC_OWNER ? { owner: env.IC_OWNER, source: 'env' } : { owner: undefined, source: 'none' };
  }
}

// Where the command acts, known before any database work (patterns are validated against it first).
export function projectFor(options: CommonOptions): Project {
  return resolveProject(process.cwd(), options.scope);
}

// `write: 'init'` is `ic init`, the one command that may start a database outside git where none is yet.
// `project`: the command's project or whole Workspace, when it has found them already.
export async function openContext(options: CommonOptions, write: boolean | 'init', project?: Project | Workspace): Promise<CoordContext> {
  const workspace = project && 'cwd' in project ? project : resolveWorkspace(process.cwd(), { env: process.env, dbFlag: options.db, scopeFlag: options.scope }, project);
  const ctx = await createContext({ workspace, env: process.env, write: write !== false, init: write === 'init', readsNeedProject: true });
  noticeLocation(ctx);
  // A killed agent's locks go at the next call, not at their TTL; a failure here must not fail the command
  // (the TTL remains the backstop).
  if (write) await releaseDeadClients(ctx).catch(() => undefined);
  return ctx;
}

// Said on stderr, so that JSON on stdout stays one document: where the answer came from when it may surprise.
function noticeLocation(ctx: CoordContext): void {
  if (ctx.legacyDb !== null && ctx.dbLocation.source === 'git') {
    process.stderr.write(
      `ic: ${ctx.legacyDb} is an ic 0.1 database and is no longer used (the database is now ${ctx.dbLocation.path}); to keep its live locks run: ic init --import ${shellQuote(ctx.legacyDb)}\n`,
    );
  }
  if (ctx.dbMissing) process.stderr.write(`ic: no database at ${ctx.dbLocation.path} yet: nothing is held (the first write creates it)\n`);
}

// Runs `work` with an open context and always closes the database, even when `work` throws.
export async function withContext<T>(options: CommonOptions, write: boolean | 'init', work: (ctx: CoordContext) => T | Promise<T>, project?: Project | Workspace): Promise<T> {
  const ctx = await openContext(options, write, project);
  try {
    return await work(ctx);
  } finally {
    ctx.db.close();
  }
}

export function viewConflict(conflict: Conflict): Record<string, unknown> {
  return { pattern: conflict.pattern, held: viewLock(conflict.held), example: conflict.example, state: conflict.state, ...(conflict.pid !== undefined ? { pid: conflict.pid } : {}) };
}

// One line per blocker that an agent or a person can act on: who, what, why, until when (relative and
// absolute) and what to do next. The hook's deny reason (src/hooks/decision.ts) says the same for agents.
export function describeConflict(conflict: Conflict, now = clockFromEnv(process.env)()): string {
  const held = conflict.held;
  if (isRunLock(held)) return describeRunConflict(conflict);
  const why = held.reason ? ` (reason: ${JSON.stringify(held.reason)})` : ' (no reason given)';
  const until = untilText(conflict, now);
  if (held.type === 'claim') return `already claimed by ${held.owner}${why} since ${whenText(iso(held.created_at), now)}, ${until}; ${nextStep(held, 'claim')}`;
  if (held.type === 'named') return `named lock "${held.pattern}" (id ${held.id}) is held by ${held.owner}${why}, ${until}; ${nextStep(held, 'lock')}`;
  return `${conflict.pattern} conflicts with ${held.owner}'s ${held.mode} lock ${held.id} on ${held.pattern}${why}, ${until}; both match ${conflict.example}; ${nextStep(held, 'file')}`;
}

const iso = (ms: number) => new Date(ms).toISOString();

// "until 14:32:05 (in 13m, 2026-11-26T14:32:05.000Z)", or for a lapsed lock how long its lock-delay lasts.
function untilText(conflict: Conflict, now: number): string {
  const held = conflict.held;
  if (conflict.state === 'lock_delay') {
    const freeAt = iso(held.expires_at + lockDelayFromEnv(process.env));
    return `lapsed at ${clockTime(iso(held.expires_at), now)} but binds others for its lock-delay until ${clockTime(freeAt, now)} (${relativeTime(freeAt, now)}, ${freeAt})`;
  }
  return `until ${clockTime(iso(held.expires_at), now)} (${relativeTime(iso(held.expires_at), now)}, ${iso(held.expires_at)}) unless released sooner`;
}

function nextStep(held: Conflict['held'], kind: 'file' | 'lock' | 'claim'): string {
  if (kind === 'claim') return `next: pick another item, see \`coord who\`, or ask ${held.owner} to run \`coord unclaim ${shellQuote(held.pattern)}\``;
  return `next: retry with --wait 5m, see \`coord who\`, or ask ${held.owner} to release it`;
}
