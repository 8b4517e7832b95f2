-- ic's tables. Times are epoch milliseconds. Every grant writes four b-tree pages: the lock row, its id
-- index entry, its base index entry and its `reserved` event (SQLite's WAL commit costs about one frame
-- per page changed, so every index here is one a command needs).

-- Locks of every type (file, named, claim). The column names id … release_reason are the ones ic 0.1
-- used, so code reading a lock row reads either.
CREATE TABLE locks (
  -- The id of the event that recorded the grant: the rowid, so rows sort by grant order for free.
  seq            INTEGER PRIMARY KEY,
  -- The public id: 8 random characters of [0-9a-z], drawn again on collision (src/core/ids.ts).
  id             TEXT NOT NULL,
  -- Fencing token: the id of the event that assigned it (`reserved`, or `transferred` later). Event ids
  -- only grow (see events), so tokens increase across the database and are never reused.
  token          INTEGER NOT NULL,
  type           TEXT NOT NULL CHECK (type IN ('file', 'named', 'claim')),
  scope          TEXT NOT NULL,
  pattern        TEXT NOT NULL,
  -- Literal base of the pattern (the name itself for named locks and claims): locks whose bases are not
  -- prefix-related never overlap.
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

CREATE UNIQUE INDEX locks_by_id ON locks (id);
-- A reserve looks only at unreleased locks of one scope and type, narrowed by literal base. The owner
-- ends the key instead of having an index of its own: one page fewer per grant, and queries by owner
-- read the active locks' entries (about a millisecond per 10,000 active locks).
CREATE INDEX locks_unreleased_by_base ON locks (scope, type, base, owner) WHERE released_at IS NULL;
-- Lapsed-by-expiry locks still bind others during the lock-delay window.
CREATE INDEX locks_expired_recently ON locks (scope, type, expires_at) WHERE release_reason = 'expired';
CREATE INDEX locks_released_at ON locks (released_at) WHERE released_at IS NOT NULL;

-- Event ids only grow, with no counter and without AUTOINCREMENT's extra write to sqlite_sequence: SQLite
-- gives a new row max(id) + 1, and a purge always keeps the newest event, so the maximum never goes back.
-- No index on created_at: only occasional commands (stats, events --since, sweep --older-than) ask for
-- events by time, and they scan the log, which sweep --older-than keeps bounded.
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

-- How many purges have deleted events: a decision taken from a read snapshot (src/coord/reserve.ts) learns
-- what changed since from the event log, so it must also learn that part of the log may have been deleted.
CREATE TABLE purges (
  id    INTEGER PRIMARY KEY CHECK (id = 1),
  count INTEGER NOT NULL
) STRICT;
INSERT INTO purges (id, count) VALUES (1, 0);

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
