import { recentClaims, type HeldClaim } from '../coord/claims';
import { createContext } from '../coord/context';
import { gitTopLevel } from './git-guard';
import { sameLineage } from './identity';
import type { HookInput, HookResult } from './run';

// The commit-message gate (install --commit-gate): a commit must name a work item its committer holds a
// claim on, or held within the last hour, so every commit can be traced to its item and handed back.

export const DEFAULT_GATE_PATTERN = 'bd-[0-9a-z]+';
export const GATE_GRACE_MS = 60 * 60_000;

// The message as git will keep it: comment lines and everything below the scissors line dropped.
export function messageText(raw: string): string {
  const lines: string[] = [];
  for (const line of raw.split('\n')) {
    if (/^# -+ >8 -+$/.test(line)) break;
    if (!line.startsWith('#')) lines.push(line);
  }
  return lines.join('\n');
}

// Every distinct item the message names, in order.
export function namedItems(message: string, pattern: string): string[] {
  const regex = new RegExp(pattern, 'g');
  return [...new Set([...message.matchAll(regex)].map((match) => match[0]).filter((item) => item !== ''))];
}

function describeClaims(claims: readonly HeldClaim[]): string {
  if (claims.length === 0) return 'you hold no claim (claim the item first: `coord claim ITEM`)';
  return `your claims: ${claims.map(({ claim, active }) => `${claim.pattern}${active ? '' : ' (ended within the hour)'}`).join(', ')}`;
}

export function runCommitGate(input: HookInput, env: NodeJS.ProcessEnv, cwd: string): HookResult {
  const mode = (env.IC_GATE ?? '').toLowerCase();
  if (mode === 'off' || mode === '0' || mode === 'false') return { stdout: '', stderr: '', exitCode: 0 };
  const warn = mode === 'warn';
  const pattern = env.IC_GATE_PATTERN || DEFAULT_GATE_PATTERN;
  const owner = env.IC_OWNER ?? '';
  const items = namedItems(messageText(input.text), pattern);
  const top = gitTopLevel(cwd, env);
  const ctx = createContext({ cwd: top, env, write: false });
  let claims: HeldClaim[];
  try {
    claims = owner === '' ? [] : recentClaims(ctx, (holder) => sameLineage(holder, owner), GATE_GRACE_MS);
  } finally {
    ctx.db.close();
  }
  const held = new Set(claims.map(({ claim }) => claim.pattern));
  if (items.some((item) => held.has(item))) return { stdout: '', stderr: '', exitCode: 0 };
  const why =
    owner === ''
      ? 'IC_OWNER is not set, so ic cannot tell whose claims to look at'
      : items.length === 0
        ? `the message names no work item (/${pattern}/)`
        : `the message names ${items.join(', ')}, which ${owner} does not hold and has not held within the hour`;
  const head = warn ? `ic: warning: ${why} (committing anyway, IC_GATE=warn)` : `ic: commit refused: ${why}.`;
  const lines = [head, `  ${describeClaims(claims)}`];
  if (!warn) lines.push('Name the item in the message (e.g. "bd-12: fix the parser"); IC_GATE=warn reports only, IC_GATE=off skips the gate.');
  return { stdout: '', stderr: `${lines.join('\n')}\n`, exitCode: warn ? 0 : 1 };
}
