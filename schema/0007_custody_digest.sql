-- The shell hooks' fast path (src/hooks/fast/) decides a command that writes nothing held from a digest
-- file beside the database, without opening it. Every change that could make a digest say too little
-- moves this generation, and the write transaction that sees it move deletes the digest before it
-- commits (src/coord/context.ts), so a digest on disk never says less than the committed database.
-- Changes that only make a digest more cautious (a renewal, a holder's record rewritten with its new
-- stat, a session's activity) leave it alone: the fast path then just goes the long way.
CREATE TABLE custody_digest (
  id         INTEGER PRIMARY KEY CHECK (id = 1),
  generation INTEGER NOT NULL
) STRICT;
INSERT INTO custody_digest (id, generation) VALUES (1, 0);

-- A lock granted, released, moved to another owner or pattern, or shortened. Every type: a session's
-- claims and named locks must outlast its shell commands as its files must (src/coord/sessions.ts).
CREATE TRIGGER custody_digest_lock_added AFTER INSERT ON locks
BEGIN
  UPDATE custody_digest SET generation = generation + 1 WHERE id = 1;
END;
CREATE TRIGGER custody_digest_lock_removed AFTER DELETE ON locks WHEN OLD.released_at IS NULL
BEGIN
  UPDATE custody_digest SET generation = generation + 1 WHERE id = 1;
END;
CREATE TRIGGER custody_digest_lock_changed AFTER UPDATE ON locks
WHEN (NEW.type IS NOT OLD.type OR NEW.scope IS NOT OLD.scope OR NEW.pattern IS NOT OLD.pattern OR NEW.owner IS NOT OLD.owner
       OR NEW.released_at IS NOT OLD.released_at OR NEW.created_at IS NOT OLD.created_at OR NEW.expires_at < OLD.expires_at)
BEGIN
  UPDATE custody_digest SET generation = generation + 1 WHERE id = 1;
END;

-- A holder's record for a path that had none, or one dropped: the digest would judge the file by the index.
CREATE TRIGGER custody_digest_record_added AFTER INSERT ON custody_latest
BEGIN
  UPDATE custody_digest SET generation = generation + 1 WHERE id = 1;
END;
CREATE TRIGGER custody_digest_record_removed AFTER DELETE ON custody_latest
BEGIN
  UPDATE custody_digest SET generation = generation + 1 WHERE id = 1;
END;

-- A hand-off request: the holder's next hook must tell its model.
CREATE TRIGGER custody_digest_handoff AFTER INSERT ON events WHEN NEW.type = 'handoff_requested'
BEGIN
  UPDATE custody_digest SET generation = generation + 1 WHERE id = 1;
END;
