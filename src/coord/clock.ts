import { repairFutureTimes } from '../store/clock';
import { writeTransaction, type CoordContext } from './context';
import { EVERYTHING } from '../store/connection';

// `ic doctor --repair-clock`: a database poisoned by a write with a wrong clock (events dated in the
// future, so every later write is refused) is dated back to now, in one transaction. The one write that
// runs without the clock window, since the window is what the poison broke; it needs no owner.
export async function repairClock(ctx: CoordContext): Promise<{ events: number; locks: number; now: number }> {
  return writeTransaction(ctx, EVERYTHING, async (now) => ({ ...(await repairFutureTimes(ctx.db, now)), now }), { checkClock: false });
}
