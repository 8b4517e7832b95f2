-- The command of each `coord lock NAME -- CMD` run, recorded with its lease (docs/reference.md, "lock"):
-- on the same host, a run lock whose command still lives is held even after its lease lapsed (its ic
-- process was killed), so the next run cannot start beside the orphan. A row goes when its run ends; a
-- row whose command is found dead is deleted by the taker that finds it.
CREATE TABLE run_processes (
  -- locks.seq of the run's named lock.
  lock_seq   INTEGER PRIMARY KEY,
  -- Which machine and pid namespace the pid means something in: hostname, boot id and pid namespace.
  host       TEXT NOT NULL,
  -- The command's pid, which is also its process group id (it runs in a group of its own).
  pid        INTEGER NOT NULL,
  -- Its start time in clock ticks since boot (/proc/PID/stat), so a reused pid is not mistaken for it.
  started    TEXT NOT NULL
) STRICT;
