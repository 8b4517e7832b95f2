import type * as NodeDns from 'node:dns';

// Stands in for node:dns where node-postgres's lib/connection-parameters.js requires it (scripts/build.mjs):
// pg uses it only to build a connection string for its native binding, which ic never loads, yet requiring
// it at load costs the driver's start. Loaded at first use, should anything use it.
module.exports = new Proxy({} as typeof NodeDns, { get: (_, name) => (require('node:dns') as Record<string | symbol, unknown>)[name] });
