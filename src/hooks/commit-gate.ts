import { findGateItems, parseGatePattern, type GatePattern } from '../core/gate-pattern';
import { recentClaims, type HeldClaim } from '../coord/claims';
import { createContext } from '../coord/context';
import { gitTopLevel } from './git-guard';
import { gitOr } from './git-index';
import { sameLineage } from '../core/owner';
import { QUIET, type HookInput, type HookResult } from './hook-types';
import type { Deadline } from '../store/deadline';
import { ownerOfCommand } from './liveness';
import { envWithin } from './settings';

// The commit-message gate (install --commit-gate): a commit must name a work item its committer holds a
// claim on, or held within the last hour, so every commit can be traced to its item and handed back.

export const DEFAULT_GATE_PATTERN = 'bd-[0-9a-z]+';
export const GATE_GRACE_MS = 60 * 60_000;

// git's candidates for core.commentChar=auto: it picks the first one no line of the message starts with,
// before the editor runs, so the hook cannot know which; any of them may start a comment line.
const AUTO_COMMENT_CHARS = ['#', ';', '@', '!', '$', '%', '^', '&', '|', ':'];

// The strings that start a comment line in this repository: core.commentChar / core.commentString (the
// last one set wins, as in git; `-c` on git's command line reaches the hook through GIT_CONFIG_PARAMETERS).
export function commentPrefixes(cwd: string, env: NodeJS.ProcessEnv, deadline: Deadline): string[] {
  // None set (exit 1): git's default, '#'. A hung git must not pass for that.
  const last = gitOr(['config', '--get-regexp', '^core\\.comment(char|string)$'], cwd, env, deadline, '').split('\n').pop() ?? '';
  const value = last.slice(last.indexOf(' ') + 1);
  if (value === 'auto') return AUTO_COMMENT_CHARS;
  return value === '' || last.indexOf(' ') < 0 ? ['#'] : [value];
}

// The message as git will store it. git runs commit-msg before its cleanup, and the hook cannot see a
// `--cleanup` flag, so the gate judges the most that cleanup can remove (`--cleanup=strip` plus
// `scissors`): every comment line, and everything from the scissors line down. A work item named only
// where git may strip it never counts.
export function messageText(raw: string, prefixes: readonly string[] = ['#']): string {
  const lines: string[] = [];
  for (const line of raw.split('\n')) {
    if (prefixes.some((prefix) => line.startsWith(`${prefix} `) && /^ -+ >8 -+$/.test(line.slice(prefix.length)))) break;
    if (!prefixes.some((prefix) => line.startsWith(prefix))) lines.push(line);
  }
  return lines.join('\n');
}

// Every distinct item the message names, in order (restricted pattern syntax, linear time: gate-pattern.ts).
export function namedItems(message: string, pattern: string | GatePattern): string[] {
  const compiled = typeof pattern === 'string' ? parseGatePattern(pattern) : pattern;
  return [...new Set(findGateItems(compiled, message))];
}

export async function runCommitGate(input: HookInput, env: NodeJS.ProcessEnv, cwd: string, deadline: Deadline): Promise<HookResult> {
  const mode = (env.IC_GATE ?? '').toLowerCase();
  if (mode === 'off' || mode === '0' || mode === 'false') return QUIET;
  const warn = mode === 'warn';
  const pattern = env.IC_GATE_PATTERN || DEFAULT_GATE_PATTERN;
  const items = namedItems(messageText(input.text, commentPrefixes(cwd, env, deadline)), pattern);
  const top = gitTopLevel(cwd, env, deadline);
  // Whose claims count: the agent session whose shell runs git (its process lineage), else IC_OWNER, as
  // the guard and `coord claim` find it; so a Codex session commits what it claimed without IC_OWNER.
  const owner = (await ownerOfCommand(top, envWithin(env, deadline, 1_000))) ?? '';
  const ctx = await createContext({ cwd: top, env, write: false });
  let claims: HeldClaim[];
  try {
    claims = owner === '' ? [] : await recentClaims(ctx, (holder) => sameLineage(holder, owner), GATE_GRACE_MS);
  } finally {
    ctx.db.close();
  }
  const held = new Set(claims.map(({ claim }) => claim.pattern));
  if (items.some((item) => held.has(item))) return QUIET;
  const why =
    owner === ''
      ? 'this git runs in no agent session ic knows and IC_OWNER is not set, so ic cannot tell whose claims to look at'
      : items.length === 0
        ? `the message names no work item (/${pattern}/)`
        : `the message names ${items.join(', ')}, which ${owner} does not hold and has not held within the hour`;
  const head = warn ? `ic: warning: ${why} (committing anyway, IC_GATE=warn)` : `ic: commit refused: ${why}.`;
  const mine = claims.map(({ claim, active }) => `${claim.pattern}${active ? '' : ' (ended within the hour)'}`).join(', ');
  const lines = [head, `  ${claims.length === 0 ? 'you hold no claim (claim the item first: `coord claim ITEM`)' : `your claims: ${mine}`}`];
  if (!warn) lines.push('Name the item in the message (e.g. "bd-12: fix the parser"); IC_GATE=warn reports only, IC_GATE=off skips the gate.');
  return { stdout: '', stderr: `${lines.join('\n')}\n`, exitCode: warn ? 0 : 1 };
}
