import { IcError } from './errors';
import { checkText } from './names';

// Owners are 1–128 characters under the text rule of names.ts: they appear in tables, JSON and hook messages.
export function validateOwner(owner: string | undefined, flag = '--owner'): string {
  if (owner === undefined || owner === '') {
    throw new IcError('USAGE', `an owner is required: pass ${flag} NAME or set IC_OWNER`, { hint: 'Try: export IC_OWNER=alice' });
  }
  checkText(owner, flag === '--owner' ? 'owner' : flag);
  // Node reads invalid UTF-8 in the environment as U+FFFD, so IC_OWNER=x\xff and x\xfe would be one owner.
  if (owner.includes('\ufffd')) throw new IcError('INVALID_INPUT', `${flag === '--owner' ? 'owner' : flag} contains U+FFFD, which stands for bytes that are not UTF-8`);
  if ([...owner].length > 128) throw new IcError('INVALID_INPUT', 'owner may be at most 128 characters', { value: owner.slice(0, 140) });
  if (owner.trim() === '') throw new IcError('INVALID_INPUT', 'owner must not be blank');
  return owner;
}

// A run of `coord lock NAME -- CMD` holds its lock as OWNER/run-ID: its own owner, so two runs by one
// owner conflict (a run is not re-entrant) and its short lease is not subject to lock-delay.
export function runOwner(owner: string, runId: string): string {
  return `${owner}/run-${runId}`;
}

const RUN_OWNER = /\/run-[0-9a-z]{8}$/;

export function isRunOwner(owner: string): boolean {
  return RUN_OWNER.test(owner);
}

// The person (or agent) who started a run: OWNER of OWNER/run-ID, which is what people should see and ask.
export function runStarter(owner: string): string {
  return isRunOwner(owner) ? owner.replace(RUN_OWNER, '') : owner;
}

// A session and its subagents form one lineage: `a` is `b`, or one of them is the other's subagent. The
// hooks hand locks along a lineage instead of refusing (see README, "Subagents").
export function sameLineage(a: string, b: string): boolean {
  return a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
}
