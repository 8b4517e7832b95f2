// The longest a call may wait for a PostgreSQL server, beyond each wait's own bound (session.ts): a
// hook sets its deadline here (src/cli/hook-call.ts), so a server that stops answering costs the hook what
// is left of IC_HOOK_TIMEOUT, and the hook still answers by IC_HOOK_FAIL. Unset: no limit but the waits' own.

let leftMs: () => number = () => Infinity;

export function limitServerWaits(left: () => number): void {
  leftMs = left;
}

export function serverWaitLimitMs(): number {
  return Math.max(0, leftMs());
}
