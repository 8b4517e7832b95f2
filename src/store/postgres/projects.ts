import type { PostgresConnection } from './connection';

// The project keys a server database knows (schema/postgres/0002_projects.sql): which key names which
// repository, by its root commit. Only SQL here; what to make of it is src/coord/project-key.ts's.

export interface NamedProject {
  project: string;
  root_commit: string | null;
}

export function projectNamed(db: PostgresConnection, key: string): NamedProject | undefined {
  return db.get<NamedProject>('SELECT project, root_commit FROM projects WHERE project = ?', [key]);
}

// The keys naming the repository whose root commit this is, oldest first.
export function projectsOfRootCommit(db: PostgresConnection, rootCommit: string): NamedProject[] {
  return db.all<NamedProject>('SELECT project, root_commit FROM projects WHERE root_commit = ? ORDER BY named_at, project', [rootCommit]);
}

// Records `key` as naming the repository of `rootCommit` (null: a repository without commits yet). A key
// recorded without a root commit takes this one; one recorded with a root commit keeps it.
export function recordProject(db: PostgresConnection, key: string, rootCommit: string | null, now: number): void {
  db.run('INSERT INTO projects (project, root_commit, named_at) VALUES (?, ?, ?) ON CONFLICT (project) DO UPDATE SET root_commit = coalesce(projects.root_commit, excluded.root_commit)', [
    key,
    rootCommit,
    now,
  ]);
}
