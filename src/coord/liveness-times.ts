// Session truth's two intervals (docs/sessions.md), apart from the code that writes sessions, so the shell
// hooks' fast path can judge a session's standing without loading the store.

/** At most one liveness write per owner in this interval (a shell command writes when its timeout needs cover). */
export const LIVENESS_WRITE_MS = 10_000;
/** What a shell command's lock cover adds after its timeout: the agent's next hook renews from there. */
export const SHELL_GRACE_MS = 60_000;
