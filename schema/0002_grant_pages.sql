-- Fewer b-tree pages written per grant: SQLite's commit costs about one WAL frame per page it changes, and a
-- grant under schema 1 changed seven (lock row, id index, two lock indexes, event row, event time index,
-- token counter). Schema 2 changes three: the lock row, its base index entry and the event row.
--
-- 1. Locks are keyed by seq, an INTEGER PRIMARY KEY: the id of the event that recorded the grant. A new
--    lock's public id is derived from seq (src/core/ids.ts) and found again by decoding it, so no id index
--    is written. Rows that carry an id not derived from their seq (every row from schema 1, and the rare
--    new lock whose derived id a schema-1 row already has) get a negative seq and are found through
--    locks_by_stored_id, which holds only them.
--    The permutation is salted per database (counters.id_salt, drawn here), so two databases give their
--    first locks different ids.
-- 2. A fencing token is the id of the event that assigned it (`reserved` or `transferred`): strictly
--    increasing and never reused, because event ids only grow. The schema-1 counter becomes
--    counters.token_floor: the tokens schema 1 handed out, raised by transfers and purges so that
--    the next token stays above every token even if events go missing.
-- 3. The owner index is folded into the base index, which now ends in owner: queries by owner read the
--    active locks' index entries (about a millisecond per 10,000 active locks) and touch only their rows.
-- 4. events_created_at is dropped: only occasional commands (stats, events --since, sweep --older-than)
--    ask for events by time, and they scan the log, which sweep --older-than keeps bounded.
CREATE TABLE locks_v2 (
  seq            INTEGER PRIMARY KEY,
  id             TEXT NOT NULL,
  token          INTEGER NOT NULL,
  type           TEXT NOT NULL CHECK (type IN ('file', 'named', 'claim')),
  scope          TEXT NOT NULL,
  pattern        TEXT NOT NULL,
  base           TEXT NOT NULL,
  owner          TEXT NOT NULL,
  mode           TEXT NOT NULL CHECK (mode IN ('exclusive', 'shared')),
  reason         TEXT,
  created_at     INTEGER NOT NULL,
  expires_at     INTEGER NOT NULL,
  ttl_ms         INTEGER NOT NULL,
  released_at    INTEGER,
  release_reason TEXT
) STRICT;

-- Schema-1 rows keep their ids, tokens and order; their seqs are negative and distinct.
INSERT INTO locks_v2 (seq, id, token, type, scope, pattern, base, owner, mode, reason, created_at, expires_at, ttl_ms, released_at, release_reason)
  SELECT rowid - (SELECT coalesce(max(rowid), 0) FROM locks) - 1, id, token, type, scope, pattern, base, owner, mode, reason, created_at, expires_at, ttl_ms, released_at, release_reason
  FROM locks;

DROP TABLE locks;
ALTER TABLE locks_v2 RENAME TO locks;

CREATE INDEX locks_unreleased_by_base ON locks (scope, type, base, owner) WHERE released_at IS NULL;
CREATE INDEX locks_expired_recently ON locks (scope, type, expires_at) WHERE release_reason = 'expired';
CREATE INDEX locks_released_at ON locks (released_at) WHERE released_at IS NOT NULL;
CREATE UNIQUE INDEX locks_by_stored_id ON locks (id) WHERE seq < 0;

-- The floor covers every token schema 1 handed out, whatever became of the events that recorded them.
-- Renamed, so that an older ic still holding the database open fails its next grant (it can no longer
-- take a token) instead of writing a row that this schema cannot find by id.
UPDATE counters SET name = 'token_floor', value = max(value, (SELECT coalesce(max(token), 0) FROM locks)) WHERE name = 'fencing_token';

-- Each database's own ids: abs() of the remainder, never of random() itself, which can be -2^63.
INSERT INTO counters (name, value) VALUES ('id_salt', abs(random() % 2821109907456));

DROP INDEX events_created_at;
