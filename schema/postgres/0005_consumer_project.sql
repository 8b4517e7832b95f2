-- A consumer's cursor belongs to a project: one server holds many projects, and two projects' readers of one
-- name (`events --consumer ci` in each one's CI) moved one shared cursor, each skipping what the other took.
-- A cursor saved before this keeps project '' and stays where every project's reader of that name starts
-- (store/events.ts, consumerPosition) until it saves its own: none loses its place, none re-reads.
ALTER TABLE consumers ADD COLUMN project TEXT COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE consumers ALTER COLUMN project DROP DEFAULT;
ALTER TABLE consumers DROP CONSTRAINT consumers_pkey;
ALTER TABLE consumers ADD PRIMARY KEY (project, name);
