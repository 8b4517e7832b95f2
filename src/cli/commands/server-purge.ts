import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { childProcess } from '../../lazy-builtins';
import type { Change } from '../../hooks/install/change';
import { DB_CONFIG_KEY, type GitInfo } from '../../store/discover';
import { projectIdentity, PROJECT_CONFIG_KEY } from '../../coord/project-key';
import { BOUND_FILE } from '../../coord/project-binding';

// `coord uninstall --purge` in a clone that uses a server: what ic recorded in the clone goes (git config
// ic.db and ic.project of the clone's own config, the key bindings it cached); the server's data stays, as
// other clones use it and dropping a team's database is not one clone's call. Said in the reply.

export interface ServerPurge {
  changes: Change[];
  /** What stays on the server: its URL without a password, and this clone's project there. */
  kept: { db: string; project: string | null };
}

export function planServerPurge(shownDb: string, root: string, info: GitInfo | null): ServerPurge {
  let project: string | null = null;
  try {
    project = info ? projectIdentity(root, info) : null;
  } catch {
    project = null; // no commit and no key: nothing of this clone's on the server
  }
  if (!info) return { changes: [], kept: { db: shownDb, project } };
  const changes: Change[] = [];
  const config = join(info.commonDir, 'config');
  const recorded = [DB_CONFIG_KEY, PROJECT_CONFIG_KEY].filter((key) => localConfig(config, ['--get', key]) !== undefined);
  if (recorded.length > 0) changes.push({ file: config, action: 'updated', apply: () => recorded.forEach((key) => localConfig(config, ['--unset-all', key])) });
  const bound = join(info.commonDir, BOUND_FILE);
  if (existsSync(bound)) changes.push({ file: bound, action: 'removed', apply: () => rmSync(bound, { force: true }) });
  return { changes, kept: { db: shownDb, project } };
}

function localConfig(file: string, args: string[]): string | undefined {
  try {
    return childProcess().execFileSync('git', ['config', '--file', file, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return undefined;
  }
}
