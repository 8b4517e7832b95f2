-- ic's tables on PostgreSQL (docs/postgres.md): the translation of schema/0001..0007 (SQLite schema version 7)
-- into one first migration. Comments on what each column means are in the SQLite files; here only what
-- differs. The tables live in the connection's first search_path schema (`ic` unless the URL says otherwise).
--
-- - Every INTEGER is a BIGINT (epoch milliseconds, ids and tokens pass 2^31); ic reads them back as numbers.
-- - STRICT and WITHOUT ROWID have no counterpart: PostgreSQL's columns are always typed, and a primary key is
--   always a separate index.
-- - Every TEXT column compares in byte order (COLLATE "C"), as SQLite's BINARY does: `base >= ? AND base < ?`
--   (the literal bases related to a pattern, src/store/locks.ts) must mean the same whatever the database's
--   locale, and listings sort the same on both engines.
-- - Event ids come from a sequence, not max(id) + 1 (see events).

-- One row per scope, locked FOR UPDATE by every write transaction of that scope (src/store/postgres/connection.ts):
-- the single writer per scope that SQLite's database-wide write lock gives, while other scopes run in parallel.
CREATE TABLE scopes (
  scope      TEXT COLLATE "C" PRIMARY KEY,
  created_at BIGINT NOT NULL
);

CREATE TABLE locks (
  seq            BIGINT PRIMARY KEY,
  id             TEXT COLLATE "C" NOT NULL,
  token          BIGINT NOT NULL,
  type           TEXT COLLATE "C" NOT NULL CHECK (type IN ('file', 'named', 'claim')),
  scope          TEXT COLLATE "C" NOT NULL,
  pattern        TEXT COLLATE "C" NOT NULL,
  base           TEXT COLLATE "C" NOT NULL,
  owner          TEXT COLLATE "C" NOT NULL,
  mode           TEXT COLLATE "C" NOT NULL CHECK (mode IN ('exclusive', 'shared')),
  reason         TEXT COLLATE "C",
  created_at     BIGINT NOT NULL,
  expires_at     BIGINT NOT NULL,
  ttl_ms         BIGINT NOT NULL,
  released_at    BIGINT,
  release_reason TEXT COLLATE "C"
);

CREATE UNIQUE INDEX locks_by_id ON locks (id);
CREATE INDEX locks_unreleased_by_base ON locks (scope, type, base, owner) WHERE released_at IS NULL;
CREATE INDEX locks_expired_by_base ON locks (scope, type, base, expires_at) WHERE release_reason = 'expired';
CREATE INDEX locks_released_at ON locks (released_at) WHERE released_at IS NOT NULL;

-- Event ids (and so fencing tokens and lock keys) come from this sequence: `nextval` before the insert where
-- the id is needed first (a grant), the column's default otherwise. A sequence never goes back and never
-- hands out one number twice, even across hosts; but numbers are taken when asked, not at commit, so two
-- scopes' transactions may commit their events out of id order. `xact` records each event's transaction, so
-- that a follower can read only events of transactions that have all finished (docs/postgres.md, "Events").
CREATE SEQUENCE events_id_seq AS BIGINT;
CREATE TABLE events (
  id         BIGINT PRIMARY KEY DEFAULT nextval('events_id_seq'),
  type       TEXT COLLATE "C" NOT NULL,
  lock_id    TEXT COLLATE "C",
  scope      TEXT COLLATE "C" NOT NULL,
  owner      TEXT COLLATE "C" NOT NULL,
  pattern    TEXT COLLATE "C",
  reason     TEXT COLLATE "C",
  created_at BIGINT NOT NULL,
  detail     TEXT COLLATE "C",
  xact       xid8 NOT NULL DEFAULT pg_current_xact_id()
);
ALTER SEQUENCE events_id_seq OWNED BY events.id;

CREATE TABLE purges (
  id    BIGINT PRIMARY KEY CHECK (id = 1),
  count BIGINT NOT NULL
);
INSERT INTO purges (id, count) VALUES (1, 0);

CREATE TABLE owners (
  owner     TEXT COLLATE "C" PRIMARY KEY,
  last_seen BIGINT NOT NULL
);

CREATE TABLE consumers (
  name       TEXT COLLATE "C" PRIMARY KEY,
  last_event BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);

CREATE TABLE settings (
  name       TEXT COLLATE "C" PRIMARY KEY,
  value      TEXT COLLATE "C" NOT NULL,
  updated_at BIGINT NOT NULL
);

CREATE TABLE sessions (
  owner       TEXT COLLATE "C" PRIMARY KEY,
  base        TEXT COLLATE "C" NOT NULL,
  agent       TEXT COLLATE "C" NOT NULL,
  host        TEXT COLLATE "C" NOT NULL,
  boot        TEXT COLLATE "C" NOT NULL,
  pid         BIGINT NOT NULL,
  start       TEXT COLLATE "C" NOT NULL,
  created_at  BIGINT NOT NULL,
  last_seen   BIGINT NOT NULL,
  told_until  BIGINT NOT NULL DEFAULT 0
);

CREATE INDEX sessions_by_process ON sessions (host, pid, start);

CREATE TABLE custody_latest (
  scope       TEXT COLLATE "C" NOT NULL,
  path        TEXT COLLATE "C" NOT NULL,
  owner       TEXT COLLATE "C" NOT NULL,
  blob        TEXT COLLATE "C",
  mode        BIGINT NOT NULL,
  stat        TEXT COLLATE "C" NOT NULL,
  source      TEXT COLLATE "C" NOT NULL CHECK (source IN ('write', 'seen')),
  recorded_at BIGINT NOT NULL,
  PRIMARY KEY (scope, path)
);

CREATE TABLE custody_commands (
  scope      TEXT COLLATE "C" NOT NULL,
  writer     TEXT COLLATE "C" NOT NULL,
  call_id    TEXT COLLATE "C" NOT NULL,
  started_at BIGINT NOT NULL,
  PRIMARY KEY (scope, writer, call_id)
);

CREATE TABLE custody_snapshots (
  scope   TEXT COLLATE "C" NOT NULL,
  writer  TEXT COLLATE "C" NOT NULL,
  call_id TEXT COLLATE "C" NOT NULL,
  path    TEXT COLLATE "C" NOT NULL,
  holder  TEXT COLLATE "C" NOT NULL,
  blob    TEXT COLLATE "C",
  mode    BIGINT NOT NULL,
  stat    TEXT COLLATE "C" NOT NULL,
  PRIMARY KEY (scope, writer, call_id, path)
);

CREATE TABLE custody_edits (
  scope      TEXT COLLATE "C" NOT NULL,
  path       TEXT COLLATE "C" NOT NULL,
  owner      TEXT COLLATE "C" NOT NULL,
  started_at BIGINT NOT NULL,
  PRIMARY KEY (scope, path)
);

-- On PostgreSQL a scope is meant to be the project's identity rather than a directory (issue #24, "Scope
-- across hosts"); the table is kept so that the same store code reads it, and so that one host's two
-- spellings of a directory still meet.
CREATE TABLE scope_names (
  identity TEXT COLLATE "C" PRIMARY KEY,
  scope    TEXT COLLATE "C" NOT NULL UNIQUE
);

CREATE TABLE run_processes (
  lock_seq   BIGINT PRIMARY KEY,
  host       TEXT COLLATE "C" NOT NULL,
  pid        BIGINT NOT NULL,
  started    TEXT COLLATE "C" NOT NULL
);

-- 0007's table, without its triggers. On SQLite they move one generation number on every change a shell
-- hook's digest file (beside the database file) could miss. On PostgreSQL there is no file beside the
-- database, so the fast path must stay off. And one row that every grant of every scope updates would
-- serialise all scopes' writers on its row lock. The table is kept so that the same store code reads a
-- generation that never moves.
CREATE TABLE custody_digest (
  id         BIGINT PRIMARY KEY CHECK (id = 1),
  generation BIGINT NOT NULL
);
INSERT INTO custody_digest (id, generation) VALUES (1, 0);
