import type { PostgresConnection } from './connection';

// The project keys a server database knows (schema/postgres/0002_projects.sql): which key names which
// repository, by its root commit. Only SQL here; what to make of it is src/coord/project-key.ts's.

export interface NamedProject {
  project: string;
  root_commit: string | null;
}

// The keys naming the repository whose root commit this is, oldest first.
export function projectsOfRootCommit(db: PostgresConnection, rootCommit: string): Promise<NamedProject[]> {
  return db.all<NamedProject>('SELECT project, root_commit FROM projects WHERE root_commit = ? ORDER BY named_at, project', [rootCommit]);
}

// The root commit `key` is bound to, null when it is bound to none. `record`: a key not yet bound is bound to
// `rootCommit` now (null: a repository without commits yet, bound by its first call after its first commit);
// a key bound to a root commit keeps it. One statement: two first users race on the primary key, one wins.
export async function bindProject(db: PostgresConnection, key: string, rootCommit: string | null, record: boolean): Promise<string | null> {
  if (!record) return (await db.get<NamedProject>('SELECT project, root_commit FROM projects WHERE project = ?', [key]))?.root_commit ?? null;
  return (await db.get<{ root_commit: string | null }>(
    'INSERT INTO projects (project, root_commit, named_at) VALUES (?, ?, (extract(epoch FROM clock_timestamp()) * 1000)::bigint) ON CONFLICT (project) DO UPDATE SET root_commit = coalesce(projects.root_commit, excluded.root_commit) RETURNING root_commit',
    [key, rootCommit],
  ))!.root_commit;
}
