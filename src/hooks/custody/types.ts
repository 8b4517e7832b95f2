// The wire-neutral shape of one agent shell command, shared by every agent adapter and the custody use
// cases (deny before, restore after). Adapters fill it from their own payloads.
export interface ShellRequest {
  /** The live agent the command runs for (e.g. `claude-<session>`). */
  owner: string;
  /** Where the command starts (the payload's cwd, else the project dir, else the hook's cwd). */
  cwd: string;
  /** The agent's project dir: only used for files outside every git repository. */
  projectDir: string;
  /** The command text exactly as the agent's shell tool will run it. */
  command: string;
  /** How events and notices name the command when its text is not known (one ended at its turn's end). */
  label?: string;
  /** The agent's id for this tool call, when it has one: pairs the before and after hooks of one command. */
  callId?: string;
  /** The command's own timeout as the agent set it, in milliseconds, when known. */
  timeoutMs?: number;
  /** After the command: how long it ran, when the agent says (Claude's PostToolUse duration_ms). Without a
   * snapshot from the before hook, only a file changed within that time is taken for the command's write. */
  durationMs?: number;
  /** After the command: the client moved it to the background (or it left a process group running, `pgid`):
   * its writes may land after the after hook, which then watches the held files (late-writes.ts). */
  lingers?: { pgid?: number };
}

// What the after-command hook did: files put back to their holder's content, and files the command
// created under another owner's pattern, moved aside (never lost).
export interface RestoreReport {
  restored: { path: string; holder: string }[];
  displaced: { path: string; holder: string; movedTo: string }[];
  /** Changed files left alone because their holder's own command was running at the same time. */
  left?: { path: string; holder: string }[];
  /** Changed files left alone because their holder's own edit was under way (its write not recorded yet). */
  editing?: { path: string; holder: string }[];
  /** Changed files left alone because nothing shows the command changed them (no snapshot from its before hook). */
  unverified?: { path: string; holder: string }[];
  /** Files not put back (or moved) because the write would have been unsafe: why, and at which path. */
  refused?: { path: string; holder: string; reason: string; at: string; text: string }[];
  /** Files put back whose index entry the command had changed too, and whose entry could not be put back. */
  indexLeft?: { path: string; error: string }[];
  /** Changed files left alone because the holder's content is no longer in git's object store. */
  missing?: { path: string; holder: string; blob: string }[];
  /** What the command had left in a restored or moved file, kept: the event `coord undo` puts it back from. */
  saved?: { path: string; event: number }[];
}
