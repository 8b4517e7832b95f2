// Tells bin/ic's loader that this run took a code path the build's warm-up cannot run (PostgreSQL: there is
// no server at build time), so that the bundle's V8 code cache is widened at exit to hold that path too.
// Without it every call on a server compiled the driver afresh (~6 ms a hook, measured).
const PATHS_TAKEN = Symbol.for('ic.code-cache.paths-taken');

export function noteCodePath(name: string): void {
  // __filename is the bundle this copy of the code was loaded from; outside a bundle nothing is noted.
  const taken = (globalThis as Record<symbol, Map<string, Set<string>> | undefined>)[PATHS_TAKEN]?.get(__filename);
  taken?.add(name);
}
