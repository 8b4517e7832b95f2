import type { Command } from 'commander';
import { Option } from 'commander';
import type { Conflict } from '../core/conflict';
import { viewLock } from '../core/lock';
import { validateOwner } from '../core/owner';
import { shellQuote } from '../core/shell';
import { createContext, resolveProject, type CoordContext, type Project } from '../coord/context';

export interface CommonOptions {
  db?: string;
  scope?: string;
  json?: boolean;
  owner?: string;
}

// Every coord command takes --db, --scope and --json (docs/reference.md, "Common flags").
export function withCommonOptions(command: Command): Command {
  return command
    .option('--db <path>', 'database file; beats $IC_DB (default: <git common dir>/ic/ic.db in a git repository, else <root>/.ic/ic.db)')
    .option('--scope <dir>', 'scope directory (default: the git work tree root)')
    .option('--json', 'print JSON even on a terminal');
}

export function ownerOption(): Option {
  return new Option('--owner <name>', 'who acts (default: $IC_OWNER)');
}

export function resolveOwner(options: CommonOptions, env: NodeJS.ProcessEnv): string {
  return validateOwner(options.owner ?? env.IC_OWNER);
}

export function optionalOwner(options: CommonOptions, env: NodeJS.ProcessEnv): string | undefined {
  const owner = options.owner ?? env.IC_OWNER;
  return owner === undefined || owner === '' ? undefined : validateOwner(owner);
}

// Where the command acts, known before any database work (patterns are validated against it first).
export function projectFor(options: CommonOptions): Project {
  return resolveProject(process.cwd(), options.scope);
}

export function openContext(options: CommonOptions, write: boolean, project?: Project): CoordContext {
  const ctx = createContext({ cwd: process.cwd(), env: process.env, dbFlag: options.db, scopeFlag: options.scope, write, project });
  noticeLocation(ctx);
  return ctx;
}

// Said on stderr, so that JSON on stdout stays one document: where the answer came from when it may surprise.
function noticeLocation(ctx: CoordContext): void {
  if (ctx.legacyDb !== null && ctx.dbLocation.source === 'git') {
    process.stderr.write(`ic: ${ctx.legacyDb} is an ic 0.1 database and is no longer used (the database is now ${ctx.dbLocation.path}); to keep its live locks run: ic init --import ${shellQuote(ctx.legacyDb)}\n`);
  }
  if (ctx.dbMissing) process.stderr.write(`ic: no database at ${ctx.dbLocation.path} yet: nothing is held (the first write creates it)\n`);
}


// Runs `work` with an open context and always closes the database, even when `work` throws.
export function withContext<T>(options: CommonOptions, write: boolean, work: (ctx: CoordContext) => T, project?: Project): T {
  const ctx = openContext(options, write, project);
  try {
    return work(ctx);
  } finally {
    ctx.db.close();
  }
}

export function viewConflict(conflict: Conflict): Record<string, unknown> {
  return { pattern: conflict.pattern, held: viewLock(conflict.held), example: conflict.example, state: conflict.state };
}

// One line per blocker that an agent or a person can act on.
export function describeConflict(conflict: Conflict): string {
  const held = conflict.held;
  const until = conflict.state === 'lock_delay' ? `lapsed at ${new Date(held.expires_at).toISOString()} (lock-delay)` : `until ${new Date(held.expires_at).toISOString()}`;
  if (held.type !== 'file') return `${held.type === 'claim' ? 'claim' : 'lock'} "${held.pattern}" is held by ${held.owner} (${held.id}) ${until}`;
  return `${conflict.pattern} conflicts with ${held.owner}'s ${held.mode} lock ${held.id} on ${held.pattern} ${until}; both match ${conflict.example}`;
}
