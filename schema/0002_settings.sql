-- Settings of the repository, stored with its database and set by a person (`ic config NAME VALUE`):
-- what every process using this database must agree on, so no one process's environment decides it.
CREATE TABLE settings (
  name       TEXT PRIMARY KEY,
  value      TEXT NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;

-- Locks swept as expired bind others during the lock-delay window: looked up by scope, type and literal
-- base like unreleased locks, so that a request finds only those related to its base, however many
-- thousands lapsed elsewhere (0001's index on expiry alone made every request read all of them).
DROP INDEX locks_expired_recently;
CREATE INDEX locks_expired_by_base ON locks (scope, type, base, expires_at) WHERE release_reason = 'expired';
