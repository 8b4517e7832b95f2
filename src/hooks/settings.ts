import { parseDuration } from '../core/duration';

// How hooks behave when ic itself cannot answer, and how long they may take.
export interface HookSettings {
  failClosed: boolean;
  /** The whole hook's budget; database waits are capped well inside it. */
  timeoutMs: number;
}

export const DEFAULT_HOOK_TIMEOUT_MS = 5_000;

export function hookSettings(env: NodeJS.ProcessEnv): HookSettings {
  let timeoutMs = DEFAULT_HOOK_TIMEOUT_MS;
  try {
    if (env.IC_HOOK_TIMEOUT) timeoutMs = Math.max(100, parseDuration(env.IC_HOOK_TIMEOUT, 'IC_HOOK_TIMEOUT'));
  } catch {
    timeoutMs = DEFAULT_HOOK_TIMEOUT_MS;
  }
  return { failClosed: env.IC_HOOK_FAIL === 'closed', timeoutMs };
}

// The environment a hook opens the database with: the busy wait never outlasts the hook's own budget.
export function envWithDeadline(env: NodeJS.ProcessEnv, budgetMs: number): NodeJS.ProcessEnv {
  let busyMs = budgetMs;
  try {
    if (env.IC_BUSY_TIMEOUT) busyMs = Math.min(busyMs, parseDuration(env.IC_BUSY_TIMEOUT, 'IC_BUSY_TIMEOUT'));
  } catch {
    // an unreadable IC_BUSY_TIMEOUT falls back to the budget
  }
  return { ...env, IC_BUSY_TIMEOUT: `${Math.max(0, Math.floor(busyMs))}ms` };
}
