import type { PgConnection } from '../store/postgres/pg-connection';
import { projectsOfRootCommit } from '../store/postgres/projects';
import { rootCommitOf } from './project-key';

// What `ic init` says about project keys on a server database (docs/postgres.md, "The scope"). The clone's key
// is bound to its repository when the context opens (project-binding.ts: a key bound to another repository is
// refused there); init reports the keys the repository's root commit already has, so a new clone sees which
// project to join (a clone of a renamed project or of a fork cannot be told from the original by its commits:
// joining is always the person's choice).

/** The keys naming this repository's root commit on the database, other than the clone's own project `key` and the root commit itself. */
export function otherProjectNames(db: PgConnection, root: string, key: string): string[] {
  const rootCommit = rootCommitOf(root);
  if (rootCommit === undefined) return [];
  return db.read(() => projectsOfRootCommit(db.pg, rootCommit).map((project) => project.project)).filter((name) => name !== key && name !== rootCommit);
}
