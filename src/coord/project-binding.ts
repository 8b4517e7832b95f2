import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { IcError } from '../core/errors';
import type { GitInfo } from '../store/discover';
import type { PostgresConnection } from '../store/postgres/connection';
import { bindProject } from '../store/postgres/projects';
import type { HealthCheck } from '../store/health';
import { projectIdentity, rootsOf } from './project-key';

// A project key on a server is bound to the repository that first used it, by its root commit
// (docs/postgres.md, "One key, one repository"): a clone of an unrelated repository presenting the same key
// (a global git config, GIT_CONFIG_*, a copied setting) would otherwise share its locks and custody. Once a
// clone has been found bound, it says so in a file under its git dir, so later calls (every hook) pay
// neither `git rev-list` nor a round trip for it.

export const BOUND_FILE = 'ic-bound-projects';

export type BindingOutcome = 'cached' | 'bound' | 'unverified';

// Checks this process passed: a call's second context does not ask again (a clone without commits has no BOUND_FILE line).
const passed = new Set<string>();

/**
 * Refuses (69) a clone whose project key this server has bound to another repository; binds an unbound key to
 * this clone's root commit. `record: false` (doctor) asks the server without writing anything.
 */
export async function checkProjectBinding(db: PostgresConnection, server: string, root: string, key: string, options: { record: boolean }, info: GitInfo | null): Promise<BindingOutcome> {
  if (!info) return 'unverified'; // project-key.ts refuses this before
  // Beside git's own files, not in <git dir>/ic/ (a clone on a server keeps nothing there).
  const cacheFile = join(info.commonDir, BOUND_FILE);
  const line = `${server}\t${key}`;
  if (options.record && (passed.has(`${line}\t${root}`) || cachedLines(cacheFile).includes(line))) return 'cached';
  // A shallow clone's roots are where its history was cut: it cannot show which repository it is.
  const shallow = existsSync(join(info.commonDir, 'shallow'));
  const roots = shallow ? [] : rootsOf(root);
  const bound = await bindProject(db, key, roots[0] ?? null, options.record);
  if (bound === null || roots.includes(bound)) {
    if (bound !== null && options.record) remember(cacheFile, line);
    if (options.record) passed.add(`${line}\t${root}`);
    return bound === null || shallow ? 'unverified' : 'bound';
  }
  if (shallow) return 'unverified';
  const have = roots.length === 0 ? 'this repository has no commit yet' : `this repository's root commit is ${roots[0]!.slice(0, 12)}`;
  throw new IcError('DB_UNAVAILABLE', `the project key ${key} is bound on this server to another repository (root commit ${bound.slice(0, 12)}), and ${have}: its locks are not this clone's`, {
    project: key,
    root_commit: bound,
    hint: `name this repository's project with another key in every clone (ic init --project KEY), or unset the one it picked up (git config --show-origin --get ic.project shows where it comes from)`,
  });
}

function cachedLines(file: string): string[] {
  try {
    return readFileSync(file, 'utf8').split('\n');
  } catch {
    return [];
  }
}

// Best effort: a clone whose git dir cannot be written asks the server again next time.
function remember(file: string, line: string): void {
  try {
    appendFileSync(file, `${line}\n`);
  } catch {
    // asked again next time
  }
}

/** `ic doctor`'s check of the clone's key (nothing written): an error when the server binds it to another repository. */
export function projectBindingCheck(server: string, root: string, info: GitInfo | null): (db: PostgresConnection) => Promise<HealthCheck> {
  return async (db) => {
    try {
      const key = projectIdentity(root, info);
      const outcome = await checkProjectBinding(db, server, root, key, { record: false }, info);
      const detail =
        outcome === 'bound' ? `${key}, bound to this repository's root commit` : `${key}, not bound to a root commit yet (a shallow clone, no commit yet, or its first call is still to come)`;
      return { name: 'project', ok: true, detail };
    } catch (error) {
      const hint = error instanceof IcError && typeof error.details.hint === 'string' ? error.details.hint : undefined;
      return { name: 'project', ok: false, severity: 'error', detail: error instanceof Error ? error.message : String(error), ...(hint ? { fix: hint } : {}) };
    }
  };
}
