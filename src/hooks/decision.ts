import type { Conflict } from '../core/conflict';
import { isIcError } from '../core/errors';
import { formatTime, spanText } from '../core/time';
import type { EditOutcome } from './edit';

// What the agent is told: go ahead (maybe with a notice for the person), or do not edit, with why.
export type Decision = { kind: 'allow'; notice?: string } | { kind: 'deny'; reason: string; notice?: string };

export const ALLOW: Decision = { kind: 'allow' };

// Conflicts become a deny an agent can act on; untrackable paths become a notice, never a block.
// Relative times in the deny are from the database's clock when the refusal was decided (outcome.now).
export function decideEdit(outcome: EditOutcome): Decision {
  // Hand-off requests reach the model through the liveness step (src/hooks/liveness.ts), once each.
  const [first, ...more] = outcome.untrackable;
  const notice = first ? `ic: not reserved (ic cannot name this path: ${first.why}): ${JSON.stringify(first.path)}${more.length > 0 ? ` and ${more.length} more` : ''}` : undefined;
  if (outcome.kind !== 'conflict') return notice ? { kind: 'allow', notice } : ALLOW;
  return { kind: 'deny', reason: denyReason(outcome.conflicts, outcome.now), ...(notice ? { notice } : {}) };
}

// Who holds it, which pattern, until when, and what to do instead.
export function denyReason(conflicts: readonly Conflict[], now: number): string {
  const lines = conflicts.map((conflict) => {
    const held = conflict.held;
    const when =
      conflict.state === 'lock_delay'
        ? `its lock lapsed at ${formatTime(held.expires_at)}, but for a short lock-delay only ${held.owner} may take it back`
        : `until ${formatTime(held.expires_at)} (${held.expires_at > now ? `in ${spanText(held.expires_at - now)}` : 'now'}) unless released sooner`;
    const why = held.reason ? ` (reason: ${held.reason})` : '';
    return `${JSON.stringify(conflict.example)} is reserved by ${held.owner}: ${held.mode} lock ${held.id} on pattern ${JSON.stringify(held.pattern)}${why}, ${when}.`;
  });
  const holders = [...new Set(conflicts.map((c) => c.held.owner))].join(', ');
  return [
    `ic: another agent is working on ${conflicts.length === 1 ? 'this file' : 'these files'}; the edit was not made.`,
    ...lines,
    `Do not edit ${conflicts.length === 1 ? 'it' : 'them'} now: work on something else and retry later, or ask ${holders} to release it (run \`coord who\` to see who holds what).`,
  ].join('\n');
}

// ic could not answer: fail open with a notice, or closed when IC_HOOK_FAIL=closed.
export function decideFailure(error: unknown, failClosed: boolean): Decision {
  const what = isIcError(error) ? `${error.code}: ${error.message}` : `internal error: ${error instanceof Error ? error.message : String(error)}`;
  if (isIcError(error) && error.code === 'TIMEOUT') {
    // Out of time (a hung git, stdin never closed): nothing for `ic doctor` to find.
    if (failClosed) return { kind: 'deny', reason: `ic could not check this edit in time (${what}). IC_HOOK_FAIL=closed, so it is refused; try again.` };
    return { kind: 'allow', notice: `ic: edit allowed without a reservation because ic could not check it in time (${what}).` };
  }
  if (failClosed) {
    return { kind: 'deny', reason: `ic could not check this edit (${what}). IC_HOOK_FAIL=closed, so edits are refused until \`ic doctor\` reports a healthy database.` };
  }
  return { kind: 'allow', notice: `ic: edit allowed without a reservation because ic could not check it (${what}); run \`ic doctor\`.` };
}

// An error in one line: ic's own with its code, anything else by its message.
export function describeError(error: unknown): string {
  if (isIcError(error)) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
