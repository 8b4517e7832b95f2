-- Locks of every type (file, named, claim). Times are epoch milliseconds.
CREATE TABLE locks (
  id             TEXT PRIMARY KEY,
  -- Fencing token from counters.fencing_token: unique by construction, so no index is paid for on insert.
  token          INTEGER NOT NULL,
  type           TEXT NOT NULL CHECK (type IN ('file', 'named', 'claim')),
  scope          TEXT NOT NULL,
  pattern        TEXT NOT NULL,
  -- Literal base of the pattern: locks whose bases are not prefix-related never overlap.
  base           TEXT NOT NULL,
  owner          TEXT NOT NULL,
  mode           TEXT NOT NULL CHECK (mode IN ('exclusive', 'shared')),
  reason         TEXT,
  created_at     INTEGER NOT NULL,
  expires_at     INTEGER NOT NULL,
  -- The TTL asked for at the last grant or renew: what heartbeat and renew extend by.
  ttl_ms         INTEGER NOT NULL,
  released_at    INTEGER,
  release_reason TEXT
) STRICT;

-- A reserve looks only at unreleased locks of one scope and type, narrowed by literal base.
CREATE INDEX locks_unreleased_by_base ON locks (scope, type, base) WHERE released_at IS NULL;
CREATE INDEX locks_unreleased_by_owner ON locks (owner, scope) WHERE released_at IS NULL;
-- Lapsed-by-expiry locks still bind others during the lock-delay window.
CREATE INDEX locks_expired_recently ON locks (scope, type, expires_at) WHERE release_reason = 'expired';
CREATE INDEX locks_released_at ON locks (released_at) WHERE released_at IS NOT NULL;

-- Monotonic counters: the fencing token is never reused, even after rows are purged.
CREATE TABLE counters (
  name  TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) STRICT;
INSERT INTO counters (name, value) VALUES ('fencing_token', 0);

-- Event ids only grow: purges always keep the newest event, so SQLite never hands out a used rowid again
-- (without AUTOINCREMENT's extra write to sqlite_sequence on every insert).
CREATE TABLE events (
  id         INTEGER PRIMARY KEY,
  type       TEXT NOT NULL,
  lock_id    TEXT,
  scope      TEXT NOT NULL,
  owner      TEXT NOT NULL,
  pattern    TEXT,
  reason     TEXT,
  created_at INTEGER NOT NULL,
  -- Extra facts as JSON (e.g. the blocking lock of a conflict, the previous owner of a transfer).
  detail     TEXT
) STRICT;
CREATE INDEX events_created_at ON events (created_at);

-- Owners seen alive by heartbeat.
CREATE TABLE owners (
  owner     TEXT PRIMARY KEY,
  last_seen INTEGER NOT NULL
) STRICT;

-- Event consumers' cursors (`events --consumer NAME`).
CREATE TABLE consumers (
  name       TEXT PRIMARY KEY,
  last_event INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;
