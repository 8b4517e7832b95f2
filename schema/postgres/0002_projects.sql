-- Project keys named with `ic init --project KEY` (each clone also keeps its key in git config ic.project),
-- with the root commit of the repository that named it: another repository cannot take a key that already
-- names one (two projects would share a scope), and `ic init` in a clone shows the keys its repository
-- already has here (docs/postgres.md, "The scope").
CREATE TABLE projects (
  project     TEXT COLLATE "C" PRIMARY KEY,
  root_commit TEXT COLLATE "C",
  named_at    BIGINT NOT NULL
);

CREATE INDEX projects_by_root_commit ON projects (root_commit);

