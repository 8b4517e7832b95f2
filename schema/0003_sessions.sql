-- Live agent sessions (docs/sessions.md). One row per live owner an agent hook registered: the client
-- process that runs the session (pid and start time on one host and boot), so that
-- - commands run from the agent's shell (`coord claim`, `git commit` through the guard) find their session
--   by walking their own parent chain, without IC_OWNER;
-- - two concurrent runs of one session id (or two sessions sharing IC_OWNER) get distinct owners;
-- - the locks of a client process that is gone are released at the next ic call, not at their TTL.
CREATE TABLE sessions (
  -- The live owner: `base`, or `base~<pid>` when another live process already runs as `base`.
  owner       TEXT PRIMARY KEY,
  -- The owner the payload names (`claude-<session id>`, `codex-<session id>`, or Codex's $IC_OWNER).
  base        TEXT NOT NULL,
  agent       TEXT NOT NULL,
  -- Where the client process runs: host name and pid namespace, and the kernel's boot id.
  host        TEXT NOT NULL,
  boot        TEXT NOT NULL,
  pid         INTEGER NOT NULL,
  -- The process's start time in clock ticks since boot (/proc/<pid>/stat field 22): a reused pid differs.
  start       TEXT NOT NULL,
  created_at  INTEGER NOT NULL,
  -- The last hook activity of the session (rate-limited writes; see src/coord/sessions.ts).
  last_seen   INTEGER NOT NULL,
  -- The newest handoff_requested event already told to the session's model: each request is told once.
  told_until  INTEGER NOT NULL DEFAULT 0
) STRICT;

CREATE INDEX sessions_by_process ON sessions (host, pid, start);
