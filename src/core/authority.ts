import { IcError } from './errors';

// The authority rule, for every command that writes (README, "Guarantees"):
// - every write names who does it (`--owner` or `$IC_OWNER`);
// - a write changes only that owner's own locks: reserve, renew, heartbeat, release, unlock, unclaim,
//   and transfer (whose --from must be the owner doing it);
// - `--force` (release, unlock, unclaim, transfer) acts on another owner's locks, and the event it
//   writes records `by`, the owner who did it; a transfer's event records `by` forced or not;
// - sweep needs no owner: it only marks what time has already ended and deletes old history.
export function mayChange(actor: string | undefined, holder: string, force: boolean): boolean {
  return force || (actor !== undefined && actor === holder);
}

// A transfer of `from`'s locks is done by `from` itself, or by anyone with --force.
export function checkTransferAuthority(actor: string, from: string, force: boolean): void {
  if (mayChange(actor, from, force)) return;
  throw new IcError('NOT_OWNER', `only ${from} may transfer ${from}'s locks; ${actor} can take them over with --force (recorded as by ${actor})`, {
    from,
    by: actor,
    hint: `Try: coord transfer --from ${from} --to ... --force`,
  });
}
