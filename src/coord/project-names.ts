import { IcError } from '../core/errors';
import type { PgConnection } from '../store/postgres/pg-connection';
import { projectNamed, projectsOfRootCommit, recordProject } from '../store/postgres/projects';
import { rootCommitOf } from './project-key';

// What `ic init` does with project keys on a server database (docs/postgres.md, "The scope"). A key named with
// --project is recorded with the repository's root commit, and a key that already names another repository
// is refused: two projects would share one scope. Every init reports the keys the repository's root commit
// already has there, so a new clone sees which project to join (a clone of a renamed project or of a fork
// cannot be told from the original by its commits: joining is always the person's choice).

export interface ProjectNaming {
  // The keys naming this repository's root commit on the database, other than the clone's own project.
  alsoNamed: string[];
}

// `key`: the clone's project (its git config key, or its root commit); `requested`: the key of --project.
export function recordProjectName(db: PgConnection, root: string, key: string, requested: string | undefined): ProjectNaming {
  const rootCommit = rootCommitOf(root) ?? null;
  return db.write({ everything: true }, () => {
    if (requested !== undefined) {
      const known = projectNamed(db.pg, requested);
      if (known?.root_commit && rootCommit && known.root_commit !== rootCommit) {
        throw new IcError('INVALID_INPUT', `the project key ${requested} already names another repository on this database (root commit ${known.root_commit.slice(0, 12)}); choose another key`, {
          project: requested,
          root_commit: known.root_commit,
          hint: 'Try: ic init --project <another key>',
        });
      }
      recordProject(db.pg, requested, rootCommit, db.now(Date.now));
    }
    const alsoNamed = rootCommit === null ? [] : projectsOfRootCommit(db.pg, rootCommit).map((project) => project.project);
    return { alsoNamed: alsoNamed.filter((name) => name !== key) };
  });
}
