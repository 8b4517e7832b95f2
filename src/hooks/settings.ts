import { formatDuration, parseDuration, parseNonNegativeDuration } from '../core/time';
import type { Deadline } from '../store/deadline';

// How hooks behave when ic itself cannot answer, and how long they may take.
export interface HookSettings {
  failClosed: boolean;
  /** The whole hook's budget; database waits are capped well inside it. */
  timeoutMs: number;
  /** Why IC_HOOK_TIMEOUT was not used (unreadable or out of range), naming it: the default applies. */
  problem?: string;
}

export const DEFAULT_HOOK_TIMEOUT_MS = 5_000;
// No agent gives a hook longer (Claude Code's default is 60 s), and the busy wait derived from it must
// stay inside IC_BUSY_TIMEOUT's own range (at most 10m).
export const MAX_HOOK_TIMEOUT_MS = 10 * 60_000;

// The hook's own working directory is only a fallback (payloads carry absolute paths and their own cwd);
// one that was deleted under the agent must not turn into a crash, which an agent reads as a non-blocking error.
export function hookCwd(env: NodeJS.ProcessEnv): string {
  try {
    return process.cwd();
  } catch {
    return env.CLAUDE_PROJECT_DIR || '/';
  }
}

export function hookSettings(env: NodeJS.ProcessEnv): HookSettings {
  const failClosed = env.IC_HOOK_FAIL === 'closed';
  if (!env.IC_HOOK_TIMEOUT) return { failClosed, timeoutMs: DEFAULT_HOOK_TIMEOUT_MS };
  try {
    return { failClosed, timeoutMs: Math.max(100, parseNonNegativeDuration(env.IC_HOOK_TIMEOUT, 'IC_HOOK_TIMEOUT', MAX_HOOK_TIMEOUT_MS)) };
  } catch (error) {
    const problem = `${(error as Error).message} (at most ${formatDuration(MAX_HOOK_TIMEOUT_MS)}); using ${formatDuration(DEFAULT_HOOK_TIMEOUT_MS)}`;
    return { failClosed, timeoutMs: DEFAULT_HOOK_TIMEOUT_MS, problem };
  }
}

// The environment a hook step opens the database with: its busy wait is what is left of the hook's deadline,
// at most `capMs`, never more than IC_BUSY_TIMEOUT, and inside IC_BUSY_TIMEOUT's range (so a long budget is
// never reported as a bad IC_BUSY_TIMEOUT).
export function envWithin(env: NodeJS.ProcessEnv, deadline: Deadline, capMs = Infinity): NodeJS.ProcessEnv {
  let busyMs = Math.min(capMs, deadline.leftMs(), MAX_HOOK_TIMEOUT_MS);
  try {
    if (env.IC_BUSY_TIMEOUT) busyMs = Math.min(busyMs, parseDuration(env.IC_BUSY_TIMEOUT, 'IC_BUSY_TIMEOUT'));
  } catch {
    // an unreadable IC_BUSY_TIMEOUT falls back to the budget
  }
  return { ...env, IC_BUSY_TIMEOUT: `${Math.max(0, Math.floor(busyMs))}ms` };
}
