-- Custody (issue #19): what a shell command changed in files other agents hold is put back afterwards.
-- Contents live in git's object store as blobs (content-addressed: nothing is stored twice); these tables
-- only name them. `stat` is "size:mtime:ctime:inode" of the file when its blob was taken, so an unchanged
-- file is recognised without reading it.

-- The latest content of each held file as its holder left it: written after every write of the holder
-- (its edit tool, its own shell command), and seeded from the file by a snapshot when the holder has not
-- written yet. A restore puts back this, never an older copy, so the holder's own writes are never undone.
-- blob NULL: the holder deleted the file.
CREATE TABLE custody_latest (
  scope       TEXT NOT NULL,
  path        TEXT NOT NULL,
  owner       TEXT NOT NULL,
  blob        TEXT,
  mode        INTEGER NOT NULL,
  stat        TEXT NOT NULL,
  -- 'write' (the holder wrote it) or 'seen' (taken from the file before another agent's command).
  source      TEXT NOT NULL CHECK (source IN ('write', 'seen')),
  recorded_at INTEGER NOT NULL,
  PRIMARY KEY (scope, path)
) STRICT, WITHOUT ROWID;

-- One row per shell command between its before and after hooks: when it started, and who ran it.
CREATE TABLE custody_commands (
  scope      TEXT NOT NULL,
  writer     TEXT NOT NULL,
  call_id    TEXT NOT NULL,
  started_at INTEGER NOT NULL,
  PRIMARY KEY (scope, writer, call_id)
) STRICT, WITHOUT ROWID;

-- What each held file (another owner's) was when the command started. blob NULL: it did not exist.
-- Files of another owner's glob that match the index are not listed: the index holds them already.
CREATE TABLE custody_snapshots (
  scope   TEXT NOT NULL,
  writer  TEXT NOT NULL,
  call_id TEXT NOT NULL,
  path    TEXT NOT NULL,
  holder  TEXT NOT NULL,
  blob    TEXT,
  mode    INTEGER NOT NULL,
  stat    TEXT NOT NULL,
  PRIMARY KEY (scope, writer, call_id, path)
) STRICT, WITHOUT ROWID;

-- An edit of the holder under way: its edit hook (before the tool writes) marks each file it reserves, and
-- the record of the holder's write (after the tool) or the end of its own shell command clears it. While a
-- file is marked, the holder's write may be on disk with its record still to come: a restore leaves the
-- file as it is rather than put back an older record over it.
CREATE TABLE custody_edits (
  scope      TEXT NOT NULL,
  path       TEXT NOT NULL,
  owner      TEXT NOT NULL,
  started_at INTEGER NOT NULL,
  PRIMARY KEY (scope, path)
) STRICT, WITHOUT ROWID;
