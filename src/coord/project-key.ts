import { existsSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { icConfigInFile, type GitInfo } from '../store/discover';
import { readRegularFile } from '../store/regular-file';
import { IcError } from '../core/errors';
import type { Project } from './workspace';
import { childProcess } from '../lazy-builtins';
import type { PgConnection } from '../store/postgres/pg-connection';
import { projectsOfRootCommit } from '../store/postgres/projects';

// On a PostgreSQL server one database serves every clone of a repository, on any host: a scope cannot be a
// path there (two clones never share one). It is the project's identity instead (docs/postgres.md, "The
// scope"): `git config ic.project` when set (`ic init --project KEY`), else the repository's root commit,
// which every clone has (and which the first call records as the clone's ic.project). SQLite keeps its path
// scopes (scopeKey, workspace.ts).

export const PROJECT_CONFIG_KEY = 'ic.project';
const MAX_PROJECT_KEY = 200;

const known = new Map<string, string>();
const rootsKnown = new Map<string, string[]>();

function git(root: string, args: string[]): { ok: boolean; out: string } {
  try {
    const out = childProcess().execFileSync('git', ['-C', root, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return { ok: true, out: out.trim() };
  } catch {
    return { ok: false, out: '' };
  }
}

/** A project key people may set: printable, no spaces, no `:` (it separates a key from a --scope directory). */
export function validateProjectKey(key: string): string {
  if (key.length === 0 || key.length > MAX_PROJECT_KEY || !/^[\x21-\x7e]+$/.test(key) || key.includes(':')) {
    throw new IcError('INVALID_INPUT', `--project ${JSON.stringify(key)}: a project key is 1 to ${MAX_PROJECT_KEY} printable ASCII characters without spaces or ':'`, {
      project: key,
      hint: 'Try: ic init --project my-team/my-repo',
    });
  }
  return key;
}

/** Stores the project key in the repository's git config, where every later call on this clone reads it. */
export function setProjectKey(root: string, key: string): void {
  validateProjectKey(key);
  if (!git(root, ['rev-parse', '--git-dir']).ok) throw notInGit(root);
  if (!git(root, ['config', PROJECT_CONFIG_KEY, key]).ok) throw new IcError('INTERNAL', `could not set git config ${PROJECT_CONFIG_KEY} in ${root}`, { path: root });
  known.delete(root);
}

/** Every root commit of the repository's history from HEAD (none before the first commit). */
export function rootsOf(root: string): string[] {
  const cached = rootsKnown.get(root);
  if (cached !== undefined) return cached;
  const listed = unbornHead(root) ? { ok: false, out: '' } : git(root, ['rev-list', '--max-parents=0', 'HEAD']);
  const roots = listed.ok ? listed.out.split(/\s+/).filter((id) => id !== '') : []; // one commit id a line
  rootsKnown.set(root, roots); // asked by the key and by its binding in one call: one walk of the history
  return roots;
}

// No commit yet: HEAD names a branch that neither a file nor packed-refs holds (a plain .git directory only; anything
// else asks git). A clone without commits then starts no process on each call for roots it cannot have.
function unbornHead(root: string): boolean {
  const dir = join(root, '.git');
  const ref = process.env.GIT_DIR ? undefined : /^ref: (refs\/heads\/\S+)\n?$/.exec(readText(join(dir, 'HEAD')))?.[1];
  return ref !== undefined && !existsSync(join(dir, ref)) && !existsSync(join(dir, 'reftable')) && !readText(join(dir, 'packed-refs')).includes(` ${ref}\n`);
}

const readText = (file: string): string => readRegularFile(file) ?? '';

/** The project's identity: `git config ic.project`, else the repository's root commit id. */
export function projectIdentity(root: string, info: GitInfo | null): string {
  const cached = known.get(root);
  if (cached !== undefined) return cached;
  if (!info) throw notInGit(root);
  // The repository's own file first (no process); else git, which also reads the global config and GIT_CONFIG_* variables.
  const configured = icConfigInFile(info.commonDir, 'project') || git(root, ['config', '--get', PROJECT_CONFIG_KEY]).out;
  let key: string;
  if (configured !== '') key = configured;
  else {
    const roots = rootsOf(root);
    const first = roots[0];
    if (first === undefined) {
      throw new IcError('INVALID_INPUT', `the repository at ${root} has no commit yet, and on a PostgreSQL database the project is named by its root commit`, {
        path: root,
        hint: 'commit first, or name the project once in this clone: ic init --project KEY (the same KEY in every clone)',
      });
    }
    key = first;
    // Recorded as the clone's key, as `ic init --project` would: finding it costs two git processes (and a
    // walk of the whole history), ~20 ms of every call on even a small repository. Best effort: a clone
    // whose config cannot be written finds it again next time. Not where the answer may still change: a
    // shallow clone (its "root" is where its history was cut) or a history with several roots.
    if (!existsSync(join(info.commonDir, 'shallow')) && roots.length === 1) git(root, ['config', PROJECT_CONFIG_KEY, key]);
  }
  known.set(root, key);
  return key;
}

function notInGit(root: string): IcError {
  return new IcError('INVALID_INPUT', `${root} is not in a git repository: on a PostgreSQL database the project is named by its repository`, {
    path: root,
    hint: 'run ic inside a clone of the project (then, if its root commit is shared with another project, ic init --project KEY)',
  });
}

/** The stored keys of a project's scopes on a server database: the project, or `<project>:<dir>` for --scope DIR below the work tree. */
export function serverScopeKeys(project: Pick<Project, 'git' | 'projectRoot' | 'scope' | 'claimScope'>): { scope: string; claimScope: string } {
  const key = projectIdentity(project.projectRoot, project.git);
  const scope = scopeUnder(key, project.projectRoot, project.scope);
  return { scope, claimScope: project.claimScope === project.scope ? scope : key };
}

function scopeUnder(key: string, root: string, dir: string): string {
  const rel = relative(root, dir).split(sep).join('/');
  if (rel === '') return key;
  if (rel === '..' || rel.startsWith('../') || rel.startsWith('/')) {
    throw new IcError('INVALID_INPUT', `--scope ${dir}: on a PostgreSQL database a scope is a directory inside the work tree (${root})`, {
      scope: dir,
      hint: 'Try: --scope with a directory below the repository root, or leave it out',
    });
  }
  return `${key}:${rel}`;
}

// What `ic init` says on a server: the keys naming this repository's root commit other than the clone's own
// `key` and the root commit itself, so a new clone sees which project to join (a fork or a renamed project
// cannot be told from the original by its commits: joining is always the person's choice).
export async function otherProjectNames(db: PgConnection, root: string, key: string): Promise<string[]> {
  const rootCommit = rootsOf(root)[0]; // the first, when it has several; none before the first commit
  if (rootCommit === undefined) return [];
  return (await db.read(async () => (await projectsOfRootCommit(db.pg, rootCommit)).map((project) => project.project))).filter((name) => name !== key && name !== rootCommit);
}
