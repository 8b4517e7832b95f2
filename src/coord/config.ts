import { formatDuration, parseDuration } from '../core/time';
import { IcError } from '../core/errors';
import { readSetting, writeSetting } from '../store/settings';
import { readTransaction, writeTransaction, type CoordContext } from './context';
import { EVERYTHING, type Connection } from '../store/connection';
import { mapInOrder } from '../core/in-order';

// The repository's settings (`ic config`): stored with the database, so every process using it (every
// agent, hook and person) agrees on them; no one process's environment can change what they mean.
interface SettingRule {
  default: string;
  describe: string;
  /** The canonical text of a valid value; throws INVALID_INPUT otherwise. */
  parse: (value: string) => string;
}

const MIN_STALL_MS = 60_000;
const MAX_STALL_MS = 30 * 86_400_000;

export const SETTINGS: Record<string, SettingRule> = {
  'stall-after': {
    default: '60m',
    describe: 'how long a claim owner may show no activity before anyone may take the claim over (1m to 30d)',
    parse: (value) => {
      const ms = parseDuration(value, 'stall-after');
      // A floor: with seconds, a claim just taken over would look stalled again to the next taker.
      if (ms < MIN_STALL_MS || ms > MAX_STALL_MS) throw new IcError('INVALID_INPUT', `stall-after must be between 1m and 30d, got "${value}"`, { value, min: '1m', max: '30d' });
      return formatDuration(ms);
    },
  },
};

function ruleFor(name: string): SettingRule {
  const rule = Object.hasOwn(SETTINGS, name) ? SETTINGS[name] : undefined;
  if (!rule) throw new IcError('INVALID_INPUT', `unknown setting "${name}"; settings: ${Object.keys(SETTINGS).join(', ')}`, { name, hint: 'Try: ic config (lists them)' });
  return rule;
}

export interface SettingView {
  name: string;
  value: string;
  /** True when nobody has set it: the default applies. */
  default: boolean;
  describe: string;
}

async function viewIn(db: Connection, name: string): Promise<SettingView> {
  const rule = ruleFor(name);
  const stored = await readSetting(db, name);
  return { name, value: stored ?? rule.default, default: stored === undefined, describe: rule.describe };
}

// One setting, or all of them, as they are now.
export async function readConfig(ctx: CoordContext, name?: string): Promise<SettingView[]> {
  return readTransaction(ctx, async () => mapInOrder(name === undefined ? Object.keys(SETTINGS) : [name], (n) => viewIn(ctx.db, n)));
}

export async function writeConfig(ctx: CoordContext, name: string, value: string): Promise<{ setting: SettingView; previous: string }> {
  const canonical = ruleFor(name).parse(value);
  return writeTransaction(ctx, EVERYTHING, async (now) => {
    const previous = (await viewIn(ctx.db, name)).value;
    await writeSetting(ctx.db, name, canonical, now);
    return { setting: await viewIn(ctx.db, name), previous };
  });
}

// The stall threshold of claims, as the repository sets it. Call inside a transaction.
export async function stallAfterMs(db: Connection): Promise<number> {
  return parseDuration((await viewIn(db, 'stall-after')).value, 'stall-after');
}
