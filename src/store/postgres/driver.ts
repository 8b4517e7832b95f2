import type PQ from 'libpq';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { IcError } from '../../core/errors';

// Where the native PostgreSQL driver (the `libpq` package) comes from. ic does not depend on it yet: it compiles
// against libpq's headers, and no command uses PostgreSQL (docs/postgres.md, "Requirements"). IC_LIBPQ_DIR
// names the package's directory (`npm run test:postgres` sets it to the copy it installs outside the
// repository), else a normal require('libpq') finds one installed beside ic.
export function loadLibpq(env: NodeJS.ProcessEnv = process.env): typeof PQ {
  const dir = env.IC_LIBPQ_DIR || undefined;
  const target = dir ?? 'libpq';
  try {
    const addon = addonOf(dir);
    return addon === undefined ? (require(target) as typeof PQ) : withSyncCalls((require(addon) as { PQ: NativePQ }).PQ);
  } catch (error) {
    throw driverError(error, dir);
  }
}

// The package's compiled addon, loaded without the package's index.js: its `bindings` lookup (a dozen paths
// tried) and `assert` cost a hook ~10 ms, more than connecting. Undefined when the build is not where
// node-gyp puts it; then the package is required as it is.
function addonOf(dir: string | undefined): string | undefined {
  let packageDir = dir;
  if (packageDir === undefined) {
    try {
      packageDir = dirname(require.resolve('libpq/package.json'));
    } catch {
      return undefined;
    }
  }
  const addon = join(packageDir, 'build', 'Release', 'addon.node');
  return existsSync(addon) ? addon : undefined;
}

type NativePQ = { prototype: Record<string, unknown> } & (new () => unknown);

// The synchronous calls ic uses (libpq.d.ts), named as the package's index.js names its native `$` methods.
function withSyncCalls(Native: NativePQ): typeof PQ {
  const proto = Native.prototype as Record<string, (...args: unknown[]) => unknown>;
  proto.connectSync ??= function (this: Record<string, (...args: unknown[]) => unknown>, conninfo = '') {
    if (this.$connectSync!(conninfo)) return;
    const error = new Error(String(this.$getLastErrorMessage!()));
    this.$finish!();
    throw error;
  };
  const same: Record<string, string> = {
    finish: '$finish',
    errorMessage: '$getLastErrorMessage',
    serverVersion: '$serverVersion',
    transactionStatus: '$transactionStatus',
    exec: '$exec',
    execParams: '$execParams',
    prepare: '$prepare',
    execPrepared: '$execPrepared',
    resultStatus: '$resultStatus',
    resultErrorMessage: '$resultErrorMessage',
    resultErrorFields: '$resultErrorFields',
    ntuples: '$ntuples',
    nfields: '$nfields',
    fname: '$fname',
    ftype: '$ftype',
    getvalue: '$getvalue',
    getisnull: '$getisnull',
    cmdTuples: '$cmdTuples',
    clear: '$clear',
  };
  for (const [name, native] of Object.entries(same)) proto[name] ??= proto[native]!;
  return Native as unknown as typeof PQ;
}

const HOW_TO_GET =
  "ic does not install it yet: in a clone of ic, `npm run test:postgres` installs the pinned version into ~/.cache/ic-postgres-driver; elsewhere, `npm install libpq` (it compiles against libpq's headers: Debian's libpq-dev) and set IC_LIBPQ_DIR to the package's directory";

// One line for people, never a stack: which of "not there" and "there but broken" happened, and how to get it.
function driverError(error: unknown, dir: string | undefined): IcError {
  const message = error instanceof Error ? error.message.split('\n')[0]! : String(error);
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const where = dir ? `IC_LIBPQ_DIR=${dir}` : 'require("libpq")';
  const details: Record<string, unknown> = { hint: HOW_TO_GET, ...(dir ? { libpq_dir: dir } : {}) };
  // Not found is about the package itself, not about a module it requires in turn (its `bindings`).
  if (code === 'MODULE_NOT_FOUND' && message.includes(`'${dir ?? 'libpq'}'`)) {
    const what = dir ? `no libpq package at ${where}` : 'the native libpq package is not installed';
    return new IcError('DB_UNAVAILABLE', `PostgreSQL support is not available: ${what}; ${HOW_TO_GET}`, details);
  }
  return new IcError(
    'DB_UNAVAILABLE',
    `PostgreSQL support is not available: the libpq package from ${where} could not be loaded (${message}); reinstall it where libpq's headers are installed (Debian's libpq-dev)`,
    details,
  );
}
